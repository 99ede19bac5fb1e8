// A real headless Chromium for the tests that check a page's layout, brought by npm alone: @sparticuz/chromium ships
// a brotli-compressed Chromium build (with its fonts, and for Amazon Linux the shared libraries it links) inside the
// package, so a machine with nothing but Node and npm needs neither a system browser nor Google's download servers.
// puppeteer-core drives it (25.11.0: the puppeteer release whose Chrome is 153, the package's Chromium).
//
// The package inflates into os.tmpdir() itself and reuses whatever `chromium` it finds there, whatever its version;
// it adds its libraries only on Amazon Linux. Here it inflates into a directory of its own version, renamed into
// place once complete (an interrupted run leaves no half-written browser), with the Amazon Linux libraries too: the
// browser is launched with them first on LD_LIBRARY_PATH (libnss3, libnspr4, libplc4, libplds4, libexpat, which a
// bare Debian or Ubuntu lacks) and with only the package's fonts, so the page renders alike on any machine.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import chromium, { inflate } from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";

const packageMain = createRequire(import.meta.url).resolve("@sparticuz/chromium");
const packageDir = join(dirname(packageMain), "..");
const packageVersion = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;

/** The shared libraries the browser links that a system without a Chromium install may lack. */
export const bundledLibraries = ["libnss3.so", "libnspr4.so", "libplc4.so", "libplds4.so", "libexpat.so.1"];

export interface ChromiumFiles {
  executablePath: string;
  /** The Amazon Linux libraries, first on the browser's LD_LIBRARY_PATH. */
  libraryPath: string;
  /** FONTCONFIG_PATH: a fonts.conf naming only the package's fonts. */
  fontConfigPath: string;
}

/** Inflates the package's Chromium, fonts and libraries once per package version (about 200 MB, 3 s). */
export async function inflateChromium(): Promise<ChromiumFiles> {
  const dir = join(tmpdir(), `chargeguard-chromium-${packageVersion}`);
  if (!existsSync(dir)) {
    const partial = mkdtempSync(`${dir}.partial-`);
    try {
      await inflateInto(partial);
      renameSync(partial, dir);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      // Another process finished first: its copy is complete (renamed into place whole).
      if (!existsSync(dir)) throw error;
    }
  }
  const files = { executablePath: join(dir, "chromium"), libraryPath: join(dir, "al2023", "lib"), fontConfigPath: join(dir, "fonts") };
  writeFontConfig(files.fontConfigPath);
  const missing = bundledLibraries.filter((library) => !existsSync(join(files.libraryPath, library)));
  if (missing.length > 0) throw new Error(`${files.libraryPath} lacks ${missing.join(", ")}`);
  return files;
}

/** The package writes to os.tmpdir(), which Node reads from TMPDIR at each call: point it at `target` meanwhile. */
async function inflateInto(target: string): Promise<void> {
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = target;
  try {
    await chromium.executablePath(join(packageDir, "bin"));
    await inflate(join(packageDir, "bin", "al2023.tar.br"));
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

/**
 * The package's fonts.conf names /tmp/fonts; this one names the fonts inflated in `fonts`, and nothing of the system's.
 * Written for the directory's final path (a config written inside the partial directory named a path gone after the
 * rename: no font matched, and Chromium drew no text at all), and rewritten whenever it names another path.
 */
function writeFontConfig(fonts: string): void {
  const path = join(fonts, "fonts.conf");
  const config = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(fonts, "fonts")}</dir><cachedir>${join(fonts, "cache")}</cachedir></fontconfig>\n`;
  if (existsSync(path) && readFileSync(path, "utf8") === config) return;
  // Written beside and renamed over: a browser another test file launches meanwhile reads the old file or the new one.
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, config);
  renameSync(partial, path);
}

export async function launchHeadlessBrowser(): Promise<Browser> {
  const files = await inflateChromium();
  const libraryPath = [files.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  try {
    return await puppeteer.launch({
      executablePath: files.executablePath,
      args: chromium.args,
      headless: "shell",
      defaultViewport: null,
      env: { ...process.env, LD_LIBRARY_PATH: libraryPath, FONTCONFIG_PATH: files.fontConfigPath },
    });
  } catch (error) {
    // A failure, never a skip: a layout test that does not run would pass a broken page.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the headless Chromium of @sparticuz/chromium ${packageVersion} (${files.executablePath}) did not start, so no layout was checked. ` +
        `It ran with LD_LIBRARY_PATH=${libraryPath} (the package's Amazon Linux libnss3, libnspr4, libplc4, libplds4, libexpat) ` +
        `and FONTCONFIG_PATH=${files.fontConfigPath}; delete ${dirname(files.executablePath)} to inflate it again. Chromium said: ${reason}`,
      { cause: error },
    );
  }
}

export interface HeadlessBrowser {
  /** A new page of `width` x `height` CSS pixels, closed with the browser. */
  page(width: number, height: number): Promise<Page>;
  version(): Promise<string>;
  /** The browser's process id (to read which libraries it loaded, /proc/PID/maps). */
  pid(): number;
}

/** One browser for the test file: launched before its tests, closed after them (and by puppeteer if the file dies). */
export function useHeadlessBrowser(): HeadlessBrowser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchHeadlessBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const launched = () => {
    if (!browser) throw new Error("the headless browser is launched in beforeAll: use it inside a test");
    return browser;
  };
  return {
    async page(width, height) {
      const page = await launched().newPage();
      await page.setViewport({ width, height });
      return page;
    },
    version: () => launched().version(),
    pid() {
      const pid = launched().process()?.pid;
      if (pid === undefined) throw new Error("the headless browser has no process");
      return pid;
    },
  };
}
