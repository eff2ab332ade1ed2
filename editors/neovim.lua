-- attractor's language server for Graphviz DOT pipelines in Neovim (0.8 or later).
-- Put this in your init.lua, or run it with :luafile path/to/neovim.lua.
-- Set vim.g.attractor_path first if the attractor executable is not on PATH.
vim.filetype.add({ extension = { dot = 'dot', gv = 'dot' } })

vim.api.nvim_create_autocmd('FileType', {
  pattern = 'dot',
  group = vim.api.nvim_create_augroup('attractor_lsp', { clear = true }),
  desc = 'Start `attractor lsp` for DOT buffers',
  callback = function(args)
    local git = vim.fs.find('.git', { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)) })[1]
    vim.lsp.start({
      name = 'attractor',
      cmd = { vim.g.attractor_path or 'attractor', 'lsp' },
      -- One server per repository (or per working directory outside one).
      root_dir = git and vim.fs.dirname(git) or vim.fn.getcwd(),
    }, { bufnr = args.buf })
  end,
})
