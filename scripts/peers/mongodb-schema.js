// One timed run of mongodb-schema (the schema engine of MongoDB Compass) over
// a file of relaxed Extended JSON, one document per line (as mongoexport
// writes it).
//
//   node mongodb-schema.js FILE
//
// Each line is parsed with the bson package's EJSON.parse({relaxed: false}),
// so $oid, $date, $numberDecimal... become BSON values and numbers become
// Int32/Double wrappers, as a driver would hand them to Compass; the stream of
// documents goes straight into parseSchema() with Compass's defaults.
// The clock starts before the file is opened and stops when the schema is
// complete: module loading and process start are not counted.
//
// Prints one JSON line: {"docs": N, "fields": F, "seconds": S, "cpuSeconds": C}
// (seconds: wall clock; cpuSeconds: user + system time of the process, all
// threads, over the same span).
'use strict';

const fs = require('fs');
const readline = require('readline');
const { EJSON } = require('bson');
const { parseSchema } = require('mongodb-schema');

async function* documents(file, counter) {
  const lines = readline.createInterface({
    input: fs.createReadStream(file),
    crlfDelay: Infinity,
  });
  for await (const line of lines) {
    if (line.length === 0) continue;
    counter.docs++;
    yield EJSON.parse(line, { relaxed: false });
  }
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node mongodb-schema.js FILE');
    process.exit(2);
  }
  const counter = { docs: 0 };
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const schema = await parseSchema(documents(file, counter));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(JSON.stringify({ docs: counter.docs, fields: schema.fields.length, seconds, cpuSeconds }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
