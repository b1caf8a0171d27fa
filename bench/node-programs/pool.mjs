// A worker pool using worker_threads: piscina with two workers minifying (terser) the JavaScript
// TypeScript built from src/ (every other file), each file a task; the main thread only hands out the tasks.
import { Piscina } from 'piscina';
import { jsSources } from './files.mjs';

const pool = new Piscina({ filename: new URL('./pool-task.mjs', import.meta.url).href, minThreads: 2, maxThreads: 2 });
const files = jsSources(2);
let bytes = 0;
for (const n of await Promise.all(files.map((f) => pool.run(f.text)))) bytes += n;
await pool.destroy();
console.log(`pool: ${bytes} bytes`);
