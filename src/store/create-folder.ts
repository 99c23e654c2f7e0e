import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * `mkdir -p`, one level at a time. Node's `mkdir(path, { recursive: true })` spins forever,
 * a core at full load, on a path whose parent exists but refuses children with ENOENT
 * (anything under /proc; seen on Node 20); here the second ENOENT ends it.
 */
export async function createFolder(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = dirname(path);
    if (code !== "ENOENT" || parent === path) throw error;
    await createFolder(parent);
    await mkdir(path).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== "EEXIST") throw again;
    });
  }
}
