// The one door to the engine's commands: Tauri's invoke, with every refusal
// (the engine's report, or Tauri's own text) rejected as an EngineError
// (errors.ts). The generated wrappers (engine-commands.ts) call it.
import { invoke as invokeCommand, type InvokeArgs } from "@tauri-apps/api/core";
import { engineError } from "./errors";

/** Runs a command; a refusal rejects as an EngineError. */
export function invoke<T>(command: string, args?: InvokeArgs): Promise<T> {
  return invokeCommand<T>(command, args).catch((rejection: unknown) => {
    throw engineError(rejection);
  });
}
