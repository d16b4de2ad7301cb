" kdsl: .k kernels and .kir textual IR (tools/editors/README.md).  Vim's
" own filetype.vim reads *.k as Kimwitu++ (kwt); these run after it and
" overrule it (`set filetype`, not `setfiletype`).
autocmd BufNewFile,BufRead *.k set filetype=kdsl
autocmd BufNewFile,BufRead *.kir set filetype=kdslir
