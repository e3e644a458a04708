// A text report from input-free computation: word frequencies of a paragraph.
// expect: OK
// stdout-contains: the          4
const text = `The sandbox runs the code. The code asks for nothing; the sandbox grants nothing more.`;
const counts = {};
for (const w of text.toLowerCase().match(/[a-z]+/g)) counts[w] = (counts[w] ?? 0) + 1;
const top = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3);
console.log('word     count');
for (const [w, n] of top) console.log(w.padEnd(8), String(n).padStart(5));
top.map(([w]) => w)
