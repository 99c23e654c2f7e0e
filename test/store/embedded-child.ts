// Run by embedded-store.test.ts in its own process (node --import tsx):
//   write <dataDir>  writes key-0, key-1, … and prints each key once its set() resolved
//   hold <dataDir>   opens the store, prints "open", and keeps it open until killed
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";

const [mode, dataDir] = process.argv.slice(2);
if (!dataDir || (mode !== "write" && mode !== "hold")) {
  console.error("usage: embedded-child.ts write|hold <dataDir>");
  process.exit(2);
}
const store = await openEmbeddedStore({ dataDir });
if (mode === "hold") {
  process.stdout.write("open\n");
  setInterval(() => undefined, 1_000);
} else {
  for (let i = 0; ; i++) {
    await store.set(`key-${i}`, { i, text: `value ${i}` });
    process.stdout.write(`key-${i}\n`);
  }
}
