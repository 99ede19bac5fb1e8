export * from "./emulator.js";
