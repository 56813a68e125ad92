// node scripts/schema-check/check.mjs SCHEMA JSON…: every JSON file must validate against the schema.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const [schemaPath, ...files] = process.argv.slice(2);
if (!schemaPath || files.length === 0) {
  console.error("usage: node check.mjs SCHEMA JSON…");
  process.exit(2);
}
const ajv = new Ajv2020({ allErrors: true, strict: true });
// The numeric formats schemars writes for Rust's integer and float types.
const whole = (min, max) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= min && n <= max });
ajv.addFormat("uint", whole(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint32", whole(0, 2 ** 32 - 1));
ajv.addFormat("uint64", whole(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: Number.isFinite });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")));
let failed = false;
for (const file of files) {
  if (validate(JSON.parse(readFileSync(file, "utf8")))) {
    console.error(`${file}: valid against ${schemaPath}`);
  } else {
    failed = true;
    for (const e of validate.errors) console.error(`${file}: ${e.instancePath || "/"} ${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
