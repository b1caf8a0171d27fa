// A database compiled to WebAssembly: sql.js (SQLite built with Emscripten) holding every line of
// src/'s TypeScript files, queried with joins, groupings and sorts. Most of its time is in
// WebAssembly functions, which both profilers name `wasm-function[N]` (docs/node.md).
import initSqlJs from 'sql.js';
import { tsSources } from './files.mjs';

const SQL = await initSqlJs();
const db = new SQL.Database();
db.run('create table line (file text, n int, len int, words int, text text)');
const insert = db.prepare('insert into line values (?, ?, ?, ?, ?)');
db.run('begin');
for (let round = 0; round < 2; round++) {
  for (const f of tsSources()) {
    f.text.split('\n').forEach((text, i) => insert.run([`${round}/${f.path}`, i + 1, text.length, text.split(/\s+/).length, text]));
  }
}
db.run('commit');
insert.free();
let rows = 0;
for (let k = 0; k < 3; k++) {
  rows += db.exec('select file, count(*), sum(len), max(words) from line group by file order by 3 desc')[0].values.length;
  rows += db.exec("select a.n, count(*) from line a join line b on a.file = b.file and a.n = b.n + 1 where a.text like '%const%' group by a.n order by 2 desc limit 50")[0].values.length;
}
console.log(`database: ${rows} rows`);
