// Builds the editor UI into ui/dist (what the Tauri shell serves), with the
// timeline bench page as a second entry, and runs its unit tests with vitest.
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
    rolldownOptions: {
      // The studio, and the timeline's benchmark page (see src/timeline/README.md).
      input: {
        main: fileURLToPath(new URL("index.html", import.meta.url)),
        "timeline-bench": fileURLToPath(new URL("timeline-bench.html", import.meta.url)),
        "script-bench": fileURLToPath(new URL("script-bench.html", import.meta.url)),
        // The picture in a window of its own (a second screen), opened from the editor.
        picture: fileURLToPath(new URL("picture.html", import.meta.url)),
      },
    },
  },
  test: {
    root: uiRoot,
    include: ["src/**/*.test.ts"],
  },
});
