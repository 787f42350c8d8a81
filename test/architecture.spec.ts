/**
 * The layer map holds at the level of folders too: dependency-cruiser's
 * rules (npm run lint) see arrows between modules, and a cycle between two
 * folders can be made of arrows between different modules of each (the way
 * store and ingest once imported each other). And docs/architecture.md, the
 * map a newcomer reads, names every folder of src/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cruise } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

/** The folder of src/ a module lives in ("." for the leaves at src/ itself). */
function folderOf(path: string): string {
  const parts = path.split("/");
  return parts[0] === "src" && parts.length > 2 ? parts[1] : ".";
}

/** Every arrow between two folders of src/, from the modules' imports. */
async function folderArrows(): Promise<Map<string, Set<string>>> {
  const result = await cruise(
    ["src"],
    { tsPreCompilationDeps: true, doNotFollow: { path: "node_modules" }, exclude: { path: "^gen/" } },
    undefined,
    { tsConfig: { fileName: "tsconfig.json" } },
  );
  if (typeof result.output === "string") throw new Error("dependency-cruiser gave text, not modules");
  const arrows = new Map<string, Set<string>>();
  for (const module of result.output.modules) {
    const from = folderOf(module.source);
    for (const dependency of module.dependencies) {
      if (!dependency.resolved.startsWith("src/")) continue;
      const to = folderOf(dependency.resolved);
      if (from === to || from === "." || to === ".") continue;
      const targets = arrows.get(from) ?? new Set<string>();
      targets.add(to);
      arrows.set(from, targets);
    }
  }
  return arrows;
}

/** A cycle of folders, as the path around it, or undefined when there is none. */
function findCycle(arrows: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (folder: string): string[] | undefined => {
    if (state.get(folder) === "done") return undefined;
    if (state.get(folder) === "open") return [...path.slice(path.indexOf(folder)), folder];
    state.set(folder, "open");
    path.push(folder);
    for (const next of arrows.get(folder) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(folder, "done");
    return undefined;
  };
  for (const folder of arrows.keys()) {
    const cycle = visit(folder);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

describe("the folders of src/", () => {
  it("import one another without a cycle", async () => {
    const arrows = await folderArrows();
    expect(arrows.size).toBeGreaterThan(5);
    expect(findCycle(arrows)).toBeUndefined();
  });

  it("finds a cycle when there is one (the check can fail)", () => {
    const arrows = new Map([
      ["store", new Set(["ingest"])],
      ["ingest", new Set(["search", "store"])],
    ]);
    expect(findCycle(arrows)).toEqual(["store", "ingest", "store"]);
  });

  it("are each named in docs/architecture.md", () => {
    const map = readFileSync("docs/architecture.md", "utf8");
    const folders = readdirSync("src", { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((folder) => !map.includes(`src/${folder}`))).toEqual([]);
  });
});
