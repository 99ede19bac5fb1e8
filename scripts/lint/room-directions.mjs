// A lint rule for the directions between rooms (directions.mjs, from ARCHITECTURE.md): a room imports only the rooms
// it may, the runtime's rooms only lower floors, and the rest of the house enters the runtime only through the
// package's doors (package.json "exports"). Relative imports only: the rooms import one another by path.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { houseRooms, runtimeFloors } from "./directions.mjs";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The runtime's doors as source files: "./dist/runtime/guard/index.js" -> "runtime/guard/index.ts". */
function runtimeDoors(root) {
  const { exports } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  return new Set(
    Object.values(exports)
      .map((entry) => (typeof entry === "string" ? entry : entry.default))
      .filter((target) => target.startsWith("./dist/runtime/"))
      .map((target) => target.slice("./dist/".length).replace(/\.js$/, ".ts")),
  );
}

const floorOf = new Map(runtimeFloors.flatMap((rooms, floor) => rooms.map((room) => [room, floor + 1])));
const houseRoomNames = Object.keys(houseRooms).sort((a, b) => b.length - a.length);

/** "runtime/guard/guard.ts" -> "runtime"; undefined for tests, scripts and anything that is no room. */
function houseRoomOf(relative) {
  return houseRoomNames.find((room) => relative === room || relative.startsWith(`${room}/`));
}

/** "runtime/guard/guard.ts" -> "guard"; "index.ts" for the door; the file's own name for a loose one. */
function runtimeRoomOf(relative) {
  const parts = relative.split("/");
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.[cm]?[jt]s$/, ".ts");
}

/** Why an import from one runtime room into another goes the wrong way; undefined when it may. */
function runtimeProblem(from, to) {
  const [fromRoom, toRoom] = [runtimeRoomOf(from), runtimeRoomOf(to)];
  if (fromRoom === toRoom || fromRoom === "index.ts") return undefined;
  const [fromFloor, toFloor] = [floorOf.get(fromRoom), floorOf.get(toRoom)];
  if (fromFloor === undefined) return undefined; // reported once, as loose, by the Program check
  if (toFloor === undefined) return `runtime/${fromRoom} may not import ${to}: only the runtime's rooms are importable inside it`;
  if (toFloor < fromFloor) return undefined;
  return `runtime/${fromRoom} (floor ${fromFloor}) may not import runtime/${toRoom} (floor ${toFloor}): a runtime room imports only lower floors`;
}

/** Why this import breaks the house's directions; undefined when it keeps them. */
function importProblem(from, to, doors) {
  const [fromRoom, toRoom] = [houseRoomOf(from), houseRoomOf(to)];
  if (fromRoom === undefined || toRoom === undefined) return undefined;
  if (fromRoom === toRoom) return fromRoom === "runtime" ? runtimeProblem(from, to) : undefined;
  if (!houseRooms[fromRoom].includes(toRoom)) {
    const allowed = houseRooms[fromRoom].length === 0 ? "no other room" : houseRooms[fromRoom].join(", ");
    return `${fromRoom} may not import ${toRoom} (it imports ${allowed})`;
  }
  if (toRoom === "runtime" && !doors.has(to.replace(/\.[cm]?js$/, ".ts"))) {
    return `${fromRoom} may import the runtime only through its doors (package.json "exports"), not ${to}`;
  }
  return undefined;
}

/** @type {import("eslint").Rule.RuleModule} */
export const roomDirections = {
  meta: {
    type: "problem",
    docs: { description: "Imports follow the directions between rooms that ARCHITECTURE.md states" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, additionalProperties: false }],
    messages: { direction: "{{problem}} (ARCHITECTURE.md, Rooms)" },
  },
  create(context) {
    const root = context.options[0]?.root ?? repositoryRoot;
    const from = path.relative(root, context.filename).split(path.sep).join("/");
    if (houseRoomOf(from) === undefined) return {};
    const doors = runtimeDoors(root);
    const check = (source) => {
      if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const to = path.relative(root, path.resolve(path.dirname(context.filename), source.value)).split(path.sep).join("/");
      const problem = importProblem(from, to, doors);
      if (problem !== undefined) context.report({ node: source, messageId: "direction", data: { problem } });
    };
    return {
      Program(node) {
        const loose = from.startsWith("runtime/") && from !== "runtime/index.ts" && !floorOf.has(runtimeRoomOf(from));
        if (loose) context.report({ node, messageId: "direction", data: { problem: `${from} stands in no room of the runtime (runtime/<room>/; only the door is at the root)` } });
      },
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default { meta: { name: "chargeguard-house" }, rules: { "room-directions": roomDirections } };
