// A formatter-like program for test/node-deep-stacks.test.ts: random syntax trees, deep (up to about
// 120 levels), printed by mutual recursion through getters and methods of several node kinds, so
// that nearly every sample has a stack of its own. No hyprof import, no worker.
const kinds = ['Call', 'Binary', 'Member', 'Block', 'Cond'];
let seed = 7;
const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);

class Node {
  constructor(kind, kids) {
    this.kind = kind;
    this.kids = kids;
  }
  get text() {
    return this.print(0);
  }
  print(indent) {
    switch (this.kind) {
      case 'Call': return printCall(this, indent);
      case 'Binary': return printBinary(this, indent);
      case 'Member': return printMember(this, indent);
      case 'Block': return printBlock(this, indent);
      default: return printCond(this, indent);
    }
  }
}
const sub = (n, i) => n.kids.map((k) => k.print(i + 1));
function printCall(n, i) { return `f(${sub(n, i).join(', ')})`; }
function printBinary(n, i) { return sub(n, i).join(' + '); }
function printMember(n, i) { return `${sub(n, i).join('.')}.x`; }
function printBlock(n, i) { return `{\n${' '.repeat(i)}${sub(n, i).join(';\n')}\n}`; }
function printCond(n, i) { const s = sub(n, i); return `(${s[0] ?? 0} ? ${s[1] ?? 1} : 2)`; }

let budget = 0;   // nodes left for the tree being built
function tree(depth) {
  budget--;
  const width = budget <= 0 || depth > 100 + rand(20) ? 0 : depth < 3 ? 3 : rand(40) === 0 ? 2 : 1;
  const kids = [];
  for (let k = 0; k < width; k++) kids.push(tree(depth + 1));
  return new Node(kinds[rand(kinds.length)], kids);
}

let chars = 0;
const until = Date.now() + Number(process.argv[2] ?? 4000);
while (Date.now() < until) {
  budget = 2000;
  chars += tree(0).text.length;
}
console.log(`printed ${chars}`);
