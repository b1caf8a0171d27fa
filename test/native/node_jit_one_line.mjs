function helper(n){let s=0;for(let i=0;i<n;i++)s+=Math.sqrt(i*i+1);return s}function hot(m){let t=0;for(let k=0;k<m;k++)t+=helper(3000);return t}let z=0;for(let r=0;r<1200;r++)z+=hot(200);console.log(z>0?'one line: done':'')
// (the first line above is the program: minified, helper is inlined into hot on the same line)
