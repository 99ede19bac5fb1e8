// The HTML report's layout, measured in a real headless Chromium (test/support/headless-browser.ts) at the widths a
// laptop and a desktop give it: nothing scrolls sideways, the verdict column and every cell stay readable, rows stay
// short, the run's verdict is on the first screen, the four charts draw; and on a phone: the page itself still does
// not scroll sideways (the tables scroll in their frames), the verdict is on the first screen, the charts stack. The
// page is renderHtmlReport over a real run's result (test/fixtures/prove/, `chargeguard prove --events 500
// --flow-events 100 --seed 7`), so the layout is the current code's over real names, verdicts and figures. This test
// takes the README's screenshot (prove/report-1280.png) when CHARGEGUARD_UPDATE_SCREENSHOT=1; otherwise it writes it
// to a scratch file and checks that it is a PNG of the page's size.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../prove/report/html-report.js";
import type { ProvingGroundResult } from "../../prove/run/run-types.js";
import { bundledLibraries, inflateChromium, useHeadlessBrowser } from "../support/headless-browser.js";

const root = join(import.meta.dirname, "../..");
const recorded = JSON.parse(readFileSync(join(root, "test/fixtures/prove/seed-7-500-100.json"), "utf8")) as { command: string; result: ProvingGroundResult };
const html = renderHtmlReport(recorded.result);
const fold = 800;
/** A phone's width in CSS pixels (a 390 px iPhone): below the tables' 1,000 px, where their frames scroll instead. */
const narrow = 390;
const scratch = mkdtempSync(join(tmpdir(), "chargeguard-report-layout-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const browser = useHeadlessBrowser();

/** What the test measures on the page, in CSS pixels. */
interface Layout {
  viewport: string | undefined;
  scrollWidth: number;
  headline: { top: number; bottom: number; width: number; text: string };
  charts: { title: string; width: number; height: number; bars: number }[];
  tables: { headers: { text: string; width: number }[]; cells: { text: string; width: number; overflows: boolean }[]; rowHeights: number[] }[];
  /** The frames the tables scroll in (.table-wrap): their left and right edges and whether they scroll. */
  frames: { left: number; right: number; scrolls: boolean }[];
  summaryBottom: number;
}

async function open(width: number): Promise<Page> {
  const page = await browser.page(width, fold);
  await page.setContent(html, { waitUntil: "load" });
  return page;
}

/** The little of the DOM the measure reads (the project's TypeScript has no DOM library: it is Node code). */
interface DomElement {
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; bottom: number; left: number; right: number; width: number; height: number };
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

function measure(page: Page): Promise<Layout> {
  // Runs in the page: puppeteer sends the function's source, so it uses only what it is given and the page's globals.
  return page.evaluate(() => {
    const { document, scrollY } = globalThis as unknown as { document: DomElement & { documentElement: DomElement }; scrollY: number };
    const box = (element: DomElement) => element.getBoundingClientRect();
    const text = (element: DomElement) => element.textContent ?? "";
    const headline = document.querySelector("h1.verdict");
    const tables = [...document.querySelectorAll("table.grid")];
    return {
      viewport: document.querySelector('meta[name="viewport"]')?.getAttribute("content") ?? undefined,
      scrollWidth: document.documentElement.scrollWidth,
      headline: headline ? { top: box(headline).top, bottom: box(headline).bottom, width: box(headline).width, text: text(headline) } : { top: 0, bottom: 0, width: 0, text: "" },
      charts: [...document.querySelectorAll("figure.chart svg")].map((svg) => ({ title: svg.getAttribute("aria-label") ?? "", width: box(svg).width, height: box(svg).height, bars: [...svg.querySelectorAll("rect:not(.dup)")].length })),
      tables: tables.map((table) => ({
        headers: [...table.querySelectorAll("th")].map((th) => ({ text: text(th), width: box(th).width })),
        cells: [...table.querySelectorAll("td")].map((td) => ({ text: text(td), width: box(td).width, overflows: td.scrollWidth > td.clientWidth })),
        rowHeights: [...table.querySelectorAll("tbody tr")].map((tr) => box(tr).height),
      })),
      frames: [...document.querySelectorAll(".table-wrap")].map((frame) => ({ left: box(frame).left, right: box(frame).right, scrolls: frame.scrollWidth > frame.clientWidth })),
      summaryBottom: tables[0] ? box(tables[0]).bottom + scrollY : 0,
    };
  });
}

/** The fonts Chromium drew the text of the first element `selector` matches with (DevTools protocol). */
async function platformFonts(page: Page, selector: string): Promise<{ familyName: string; glyphCount: number }[]> {
  const cdp = await page.createCDPSession();
  try {
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument");
    const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
    return fonts;
  } finally {
    await cdp.detach();
  }
}

describe("the HTML report in a headless Chromium", () => {
  const contenders = recorded.result.contenders.length;

  it("runs the package's Chromium on the libraries it brought, not the system's", async () => {
    expect(await browser.version()).toMatch(/^HeadlessChrome\/153\./);
    // The files the process mapped (the last field of /proc/PID/maps), those of the libraries the package brings.
    const mapped = new Set(readFileSync(`/proc/${browser.pid()}/maps`, "utf8").split("\n").map((line) => line.split(/\s+/).slice(5).join(" ")));
    const loaded = [...mapped].filter((path) => bundledLibraries.includes(basename(path))).sort();
    const { libraryPath } = await inflateChromium();
    expect(loaded).toEqual(bundledLibraries.map((library) => join(libraryPath, library)).sort());
  });

  it("draws the page's text in the package's font, and no other (a browser without fonts measures and draws no text)", async () => {
    const page = await open(1280);
    for (const selector of ["h1.verdict", "table.grid td", "figure.chart svg text"]) {
      const fonts = await platformFonts(page, selector);
      expect(fonts.map((font) => font.familyName), selector).toEqual(["Open Sans"]);
      expect(fonts[0]?.glyphCount, selector).toBeGreaterThan(0);
    }
  });

  it("renders a real run: every contender of `chargeguard prove`", () => {
    expect(recorded.command).toBe("chargeguard prove --events 500 --flow-events 100 --seed 7");
    expect(contenders).toBeGreaterThanOrEqual(10);
  });

  for (const width of [1280, 1400]) {
    describe(`at ${width} px`, () => {
      let layout: Layout;
      beforeAll(async () => {
        layout = await measure(await open(width));
      });

      it("does not scroll sideways, nor do its tables, and says so to a phone's browser too (viewport meta tag)", () => {
        expect(layout.viewport).toBe("width=device-width, initial-scale=1");
        expect(layout.scrollWidth).toBeLessThanOrEqual(width);
        expect(layout.frames.length).toBeGreaterThanOrEqual(2);
        for (const frame of layout.frames) expect(frame).toMatchObject({ scrolls: false });
        for (const frame of layout.frames) expect(frame.right).toBeLessThanOrEqual(width);
      });

      it("shows the run's verdict as its headline on the first screen", () => {
        expect(layout.headline.text).toMatch(/^(PASSED|FAILED): /);
        expect(layout.headline.top).toBeGreaterThanOrEqual(0);
        expect(layout.headline.bottom).toBeLessThanOrEqual(fold);
        expect(layout.headline.width).toBeGreaterThan(width / 2);
      });

      it("draws the four charts, a bar per contender, side by side", () => {
        expect(layout.charts.map((chart) => chart.title)).toEqual(["Succeeded charges, duplicates in red", "Lost billings", "Over-cap spend", "Wall time"]);
        for (const chart of layout.charts) {
          expect(chart.bars).toBe(contenders);
          // Two a row: each about half the page's width, never wider than the page.
          expect(chart.width).toBeGreaterThan(width / 3);
          expect(chart.width).toBeLessThan(width / 2);
          expect(chart.height).toBeGreaterThan(contenders * 10);
        }
      });

      it("keeps the verdict column and every cell readable, and every contender's row short", () => {
        const [summary, details] = layout.tables;
        expect(summary?.headers.at(-1)).toMatchObject({ text: "verdict" });
        expect(summary?.headers.at(-1)?.width).toBeGreaterThanOrEqual(100);
        expect(summary?.rowHeights).toHaveLength(contenders);
        expect(details?.rowHeights).toHaveLength(contenders);
        for (const table of layout.tables) {
          for (const header of table.headers) expect(header.width, header.text).toBeGreaterThanOrEqual(60);
          // No figure or word cut off or spilling over its neighbour.
          for (const cell of table.cells) expect(cell.overflows, cell.text).toBe(false);
        }
        for (const height of summary?.rowHeights ?? []) expect(height).toBeLessThanOrEqual(60);
        for (const height of details?.rowHeights ?? []) expect(height).toBeLessThanOrEqual(120);
      });
    });
  }

  describe(`at ${narrow} px, a phone`, () => {
    let layout: Layout;
    beforeAll(async () => {
      layout = await measure(await open(narrow));
    });

    it("does not scroll sideways: the tables scroll inside their frames, which stay on the screen", () => {
      expect(layout.scrollWidth).toBeLessThanOrEqual(narrow);
      expect(layout.frames.length).toBeGreaterThanOrEqual(2);
      for (const frame of layout.frames) {
        expect(frame.scrolls).toBe(true);
        expect(frame.left).toBeGreaterThanOrEqual(0);
        expect(frame.right).toBeLessThanOrEqual(narrow);
      }
    });

    it("shows the verdict headline on the first screen and stacks the charts, each as wide as the text", () => {
      expect(layout.headline.text).toMatch(/^(PASSED|FAILED): /);
      expect(layout.headline.bottom).toBeLessThanOrEqual(fold);
      expect(layout.charts).toHaveLength(4);
      for (const chart of layout.charts) expect(chart.width).toBeGreaterThan(narrow * 0.75);
      for (const chart of layout.charts) expect(chart.width).toBeLessThanOrEqual(narrow);
    });
  });

  it("takes the README's screenshot at 1280 px: the headline, the charts and the row per contender", async () => {
    const update = process.env.CHARGEGUARD_UPDATE_SCREENSHOT === "1";
    const path = update ? join(root, "prove/report-1280.png") : join(scratch, "report-1280.png");
    const page = await open(1280);
    const { summaryBottom } = await measure(page);
    await page.screenshot({ path, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(summaryBottom) + 24 }, captureBeyondViewport: true });
    const png = readFileSync(path);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // The PNG's header (IHDR): its width and height in pixels.
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBe(Math.ceil(summaryBottom) + 24);
    expect(statSync(path).size).toBeGreaterThan(20_000);
  });
});
