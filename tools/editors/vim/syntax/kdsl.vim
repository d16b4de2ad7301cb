" Vim syntax file
" Language:   kdsl kernels (.k): docs/language.md
" Maintainer: the kdsl project (tools/editors/README.md)
"
" The word lists are the compiler's: `kdslc --list-names` prints the
" targets, dtypes, memory spaces and ops, and frontend/lex.re holds the
" keywords; tests/lit/driver/editors.test fails when one is missing here.

if exists('b:current_syntax')
  finish
endif

syn case match

" Keywords of frontend/lex.re.
syn keyword kdslKeyword      target const kernel let var for in step if else return
syn keyword kdslBoolean      true false

" Targets (after `target`), dtypes, memory spaces.
syn keyword kdslTarget       neuron ascend aipu
syn keyword kdslType         i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 bool
syn keyword kdslSpace        gm ub l1 hbm sbuf psum lsram

" Vector types (i32x8) and mask types (bool8x8), as the lexer reads them.
syn match   kdslType         "\<\%(i8\|i16\|i32\|i64\|u8\|u16\|u32\|u64\|f16\|bf16\|f32\)x\d\+\>"
syn match   kdslType         "\<bool\d\+x\d\+\>"

" Ops of every target's op table, and neuron's allocation calls.
syn keyword kdslOp           data_move vec_dup vec_add vec_sub vec_mul vec_max vec_min vec_adds vec_muls vec_abs vec_exp vec_ln vec_rec vec_relu vec_conv elem_read elem_write
syn keyword kdslOp           load store tensor_copy memset iota tensor_tensor tensor_scalar
syn keyword kdslOp           activation nc_matmul nc_transpose nc_stream_shuffle
syn keyword kdslOp           tensor_copy_predicated
syn keyword kdslOp           predicated_merge
syn keyword kdslOp           load_gather store_scatter identity affine_select tensor_reduce
syn keyword kdslOp           vload vstore vconcat vsplit vzip vcompt vcompc vrevs vsel vshfl
syn keyword kdslOp           vbcast vsldl vtbl vreplic tail_mask min max
syn keyword kdslOp           vload_gather vstore_scatter dma_copy
syn keyword kdslOp           cast vrpadd vrint clip abs
syn keyword kdslOp           mask_and mask_or mask_xor mask_not
syn keyword kdslBuiltin      mod_alloc alloc

" Numbers: decimal and hex with `_` separators, floats with an exponent.
syn match   kdslNumber       "\<\d\%(_\=\d\)*\>"
syn match   kdslNumber       "\<0[xX]\x\%(_\=\x\)*\>"
syn match   kdslFloat        "\<\d\%(_\=\d\)*\.\d\%(_\=\d\)*\%([eE][+-]\=\d\%(_\=\d\)*\)\=\>"
syn match   kdslFloat        "\<\d\%(_\=\d\)*[eE][+-]\=\d\%(_\=\d\)*\>"

" Strings (escapes \" \\ \n \t) and comments.
syn match   kdslEscape       contained "\\[\"\\nt]"
syn region  kdslString       start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=kdslEscape
syn keyword kdslTodo         contained TODO FIXME XXX NOTE
syn match   kdslComment      "//.*$" contains=kdslTodo,@Spell
syn region  kdslComment      start="/\*" end="\*/" contains=kdslTodo,@Spell
" a line inside a long /* */ comment is found from the comment's start
syn sync ccomment kdslComment minlines=50

hi def link kdslKeyword      Keyword
hi def link kdslBoolean      Boolean
hi def link kdslTarget       Constant
hi def link kdslType         Type
hi def link kdslSpace        StorageClass
hi def link kdslOp           Function
hi def link kdslBuiltin      Function
hi def link kdslNumber       Number
hi def link kdslFloat        Float
hi def link kdslEscape       SpecialChar
hi def link kdslString       String
hi def link kdslTodo         Todo
hi def link kdslComment      Comment

let b:current_syntax = 'kdsl'
