// The CLI's version: that of the chargeguard package it runs from, found the one way the scaffolder finds it.
import { runningChargeguard } from "../templates/dependency-source.js";

export const version: string = runningChargeguard().version;
