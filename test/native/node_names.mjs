// Functions of every kind V8 names differently, each hot, for test/node-names.test.ts (compared with
// `node --cpu-prof` on this same script): a getter and a setter (V8's names `get node`, `set value`,
// with a space), a class method, a static method, an async function and a bound function.
function spin(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i) % 7;
  return s;
}

class Tree {
  constructor() {
    this.v = 0;
  }
  get node() {
    let s = 0;
    for (let i = 0; i < 20000; i++) s += Math.sqrt(i + this.v) % 3;
    return s;
  }
  set value(x) {
    let s = 0;
    for (let i = 0; i < 20000; i++) s += Math.sqrt(i * x) % 5;
    this.v = s % 2;
  }
  walk() {
    let s = 0;
    for (let i = 0; i < 20000; i++) s += Math.sqrt(i ^ 5) % 11;
    return s;
  }
  static build() {
    let s = 0;
    for (let i = 0; i < 20000; i++) s += Math.sqrt(i + 3) % 13;
    return s;
  }
}

async function settle(n) {
  await null;
  let s = 0;
  for (let i = 0; i < 20000; i++) s += Math.sqrt(i * n) % 17;
  return s;
}

function boundWork(k) {
  let s = 0;
  for (let i = 0; i < 20000; i++) s += Math.sqrt(i + k + this.base) % 19;
  return s;
}
const bound = boundWork.bind({ base: 1 });

const t = new Tree();
let total = 0;
const until = Date.now() + Number(process.argv[2] ?? 1500);
while (Date.now() < until) {
  for (let r = 0; r < 20; r++) {
    total += t.node;
    t.value = r;
    total += t.walk();
    total += Tree.build();
    total += await settle(r);
    total += bound(r);
  }
}
console.log(total > 0 ? 'done' : 'none', spin(1));
