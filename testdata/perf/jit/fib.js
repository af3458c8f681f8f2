// A short JavaScript loop node compiles (fib, then an optimized fib).
function fib(n){ return n < 2 ? n : fib(n-1) + fib(n-2); }
function work(){ let s = 0; for (let i = 0; i < 30; i++) s += fib(20); return s; }
let t = 0;
for (let k = 0; k < 20; k++) t += work();
console.log(t);
