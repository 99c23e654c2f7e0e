import { benchBot } from "./bot-bench.ts";

const row: any = await benchBot({
  concurrency: 100,
  maxActiveAnswers: 100,
  profileDir: "/tmp/prof/bot-100",
});
console.log(JSON.stringify(row, null, 1).slice(0, 3000));
