import test from 'ava';
import { parseAddr2line, parseLlvmJson } from '../src/symbolize/tools.js';
import { AddressMap } from '../src/symbolize/address-map.js';

test('addr2line output: inline levels, unknown entries, discriminators', (t) => {
  const out = [
    '0x0000000000001182',
    'sq',
    '/src/a.c:2',
    'work',
    '/src/a.c:3 (discriminator 1)',
    '0x0000000000009999',
    '??',
    '??:0',
    '0x0000000000001190',
    'work',
    '??:?',
    '',
  ].join('\n');
  t.deepEqual(parseAddr2line(out, 3), [
    [
      { function: 'sq', file: '/src/a.c', line: 2 },
      { function: 'work', file: '/src/a.c', line: 3 },
    ],
    null,
    [{ function: 'work', file: '', line: 0 }],
  ]);
  // Missing output for trailing addresses gives null, never a shifted answer.
  t.deepEqual(parseAddr2line('0x1\nf\na.c:1\n', 2), [[{ function: 'f', file: 'a.c', line: 1 }], null]);
});

test('llvm-symbolizer JSON: inline chains, unknown functions, errors', (t) => {
  const out = [
    JSON.stringify({ Address: '0x1182', Symbol: [{ FunctionName: 'sq', FileName: '/a.c', Line: 2 }, { FunctionName: 'work', FileName: '/a.c', Line: 3 }] }),
    JSON.stringify({ Address: '0x1', Symbol: [{ FunctionName: '', FileName: '', Line: 0 }] }),
    JSON.stringify({ Address: '0x2', Error: { Message: 'No such file or directory' } }),
    JSON.stringify({ Address: '0x3', Symbol: [{ FunctionName: 'memcpy', FileName: '', Line: 0 }] }),
  ].join('\n');
  t.deepEqual(parseLlvmJson(out, 4), [
    [
      { function: 'sq', file: '/a.c', line: 2 },
      { function: 'work', file: '/a.c', line: 3 },
    ],
    null,
    null,
    [{ function: 'memcpy', file: '', line: 0 }],
  ]);
});

test('address map: segment lookup and module addresses', (t) => {
  const m = new AddressMap([
    { start: 0x7000n, end: 0x8000n, bias: 0x6000n, path: '/lib/b.so', buildId: '' },
    { start: 0x1000n, end: 0x2000n, bias: 0n, path: '/bin/a', buildId: '' },
  ]);
  t.deepEqual(m.lookup(0x1800n)?.moduleAddress, 0x1800n);
  t.is(m.lookup(0x7fffn)?.mapping.path, '/lib/b.so');
  t.is(m.lookup(0x7fffn)?.moduleAddress, 0x1fffn);
  t.is(m.lookup(0x8000n), null);
  t.is(m.lookup(0x500n), null);
  t.is(m.lookup(0x2000n), null);
});
