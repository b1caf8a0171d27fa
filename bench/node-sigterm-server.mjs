// A server that runs until it is stopped (bench/node-sigterm.ts): node:http rendering a JSON page, as
// bench/node-programs/server.mjs does, loaded by a loop of requests from the same process (10
// requests in flight over keep-alive connections), so that nothing outside the measured process is
// needed. No SIGTERM handler of its own: the signal ends it as it ends any node program.
import { Agent, createServer, get } from 'node:http';

const records = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item-${i}`, score: (i * 7919) % 1000, tags: ['a', 'b', 'c'].slice(i % 3) }));
const server = createServer((req, res) => {
  const min = Number(new URL(req.url, 'http://x').searchParams.get('min') ?? 0);
  const body = JSON.stringify(records.filter((r) => r.score >= min).sort((a, b) => b.score - a.score).slice(0, 100));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const agent = new Agent({ keepAlive: true, maxSockets: 10 });
  const loop = () =>
    get({ host: '127.0.0.1', port, path: '/?min=200', agent }, (res) => {
      res.resume();
      res.on('end', loop);
    });
  for (let i = 0; i < 10; i++) loop();
  console.log('serving');
});
