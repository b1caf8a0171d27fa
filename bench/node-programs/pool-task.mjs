// One task of pool.mjs, in a worker: minify one file, return the output's length.
import { minify } from 'terser';

export default async function (text) {
  return (await minify(text, { module: true, compress: { passes: 2 }, mangle: true })).code.length;
}
