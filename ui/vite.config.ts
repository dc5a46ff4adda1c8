// Builds the editor UI into ui/dist (what the Tauri shell serves) and runs
// its unit tests with vitest.
import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const uiRoot = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: uiRoot,
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari15",
  },
  test: {
    root: uiRoot,
    include: ["src/**/*.test.ts"],
  },
});
