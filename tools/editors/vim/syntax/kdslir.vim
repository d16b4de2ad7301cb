" Vim syntax file
" Language:   kdsl textual IR (.kir): docs/passes.md, "Textual IR"
" Maintainer: the kdsl project (tools/editors/README.md)
"
" The word lists are the compiler's: `kdslc --list-names` prints the
" dtypes, memory spaces and ops (the IR's generic ops as "op ir NAME"),
" and ir/read/irlex.re holds the keywords; tests/lit/driver/editors.test
" fails when one is missing here.

if exists('b:current_syntax')
  finish
endif

syn case match

" Keywords of ir/read/irlex.re, and the buffer attributes the reader takes.
syn keyword kdslirKeyword    func buffer
syn keyword kdslirAttr       at alloc mod direct base blocks
syn keyword kdslirBoolean    true false

" Dtypes, the IR's own scalar types (i64 for integers, f64, str; `list`
" is also an op, and is shown as one), memory spaces, and KIND.DTYPE
" spellings such as int.none.
syn keyword kdslirType       i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 bool f64 str
syn match   kdslirType       "\<\%(i8\|i16\|i32\|i64\|u8\|u16\|u32\|u64\|f16\|bf16\|f32\|bool\)x\d\+\>"
syn match   kdslirType       "\<\%(int\|float\|bool\|str\|ref\|vec\|mask\|list\)\.\%(none\|i8\|i16\|i32\|i64\|u8\|u16\|u32\|u64\|f16\|bf16\|f32\|bool\)\%(x\d\+\)\=\>"
syn keyword kdslirSpace      gm ub l1 hbm sbuf psum lsram

" Ops: the generic IR ops (terminators apart), then every target's.
syn keyword kdslirOp         add sub mul div rem shl shr and or xor eq ne lt le gt ge land lor
syn keyword kdslirOp         neg not cast view tile list vsplat vmask dim_index
syn keyword kdslirTerm       jmp br ret
syn keyword kdslirOp         data_move vec_dup vec_add vec_sub vec_mul vec_max vec_min vec_adds vec_muls vec_abs vec_exp vec_ln vec_rec vec_relu vec_conv elem_read elem_write
syn keyword kdslirOp         load store tensor_copy memset iota tensor_tensor tensor_scalar
syn keyword kdslirOp         activation nc_matmul nc_transpose nc_stream_shuffle
syn keyword kdslirOp         tensor_copy_predicated
syn keyword kdslirOp         predicated_merge
syn keyword kdslirOp         load_gather store_scatter identity affine_select tensor_reduce
syn keyword kdslirOp         vload vstore vconcat vsplit vzip vcompt vcompc vrevs vsel vshfl
syn keyword kdslirOp         vbcast vsldl vtbl vreplic tail_mask min max
syn keyword kdslirOp         vload_gather vstore_scatter dma_copy
syn keyword kdslirOp         vrpadd vrint clip abs
syn keyword kdslirOp         mask_and mask_or mask_xor mask_not

" Values (%3, %x), buffers and functions (@acc), block labels (bb2).
syn match   kdslirValue      "%\%(\d\+\|\h\w*\%(\.\w\+\)*\)"
syn match   kdslirGlobal     "@\h\w*\%(\.\w\+\)*"
syn match   kdslirLabel      "\<bb\d\+\>"

" Numbers (the IR prints decimal, signed), floats, inf and nan.
syn match   kdslirNumber     "-\=\<\d\+\>"
syn match   kdslirFloat      "-\=\<\d\+\%(\.\d\+\%([eE][+-]\=\d\+\)\=\|[eE][+-]\=\d\+\)\>"
syn match   kdslirFloat      "-\=\<\%(inf\|nan\)\>"

" Strings (escapes \" \\ \n \t \xHH); `;` starts a comment line or a
" line's annotation (source position, names, loop facts).
syn match   kdslirEscape     contained "\\\%([\"\\nt]\|x\x\x\)"
syn region  kdslirString     start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=kdslirEscape
syn match   kdslirComment    ";.*$" contains=@Spell

hi def link kdslirKeyword    Keyword
hi def link kdslirAttr       StorageClass
hi def link kdslirBoolean    Boolean
hi def link kdslirType       Type
hi def link kdslirSpace      StorageClass
hi def link kdslirOp         Function
hi def link kdslirTerm       Statement
hi def link kdslirValue      Identifier
hi def link kdslirGlobal     Identifier
hi def link kdslirLabel      Label
hi def link kdslirNumber     Number
hi def link kdslirFloat      Float
hi def link kdslirEscape     SpecialChar
hi def link kdslirString     String
hi def link kdslirComment    Comment

let b:current_syntax = 'kdslir'
