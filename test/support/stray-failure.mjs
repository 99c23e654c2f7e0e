// Preloaded into a bot process by test/main/process-guard.test.ts (NODE_OPTIONS=--import):
// on SIGUSR2 it fails the way a buggy dependency can, outside any request's error handling.
// STRAY_FAILURE=rejection: a promise rejects with nobody awaiting it; exception: a timer throws.
process.on("SIGUSR2", () => {
  if (process.env.STRAY_FAILURE === "exception") {
    setTimeout(() => {
      throw new Error("stray exception from a timer");
    }, 0);
  } else {
    void Promise.reject(new Error("stray rejection nobody awaits"));
  }
});
