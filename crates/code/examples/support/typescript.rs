/// About 1 MiB of typical TypeScript (interfaces, generics, annotations, assertions).
pub fn one_mib() -> String {
    let unit = r#"interface Point<T extends number = number> { x: T; y: T; label?: string }
type Pair = [Point, Point];
function distance<T extends number>(a: Point<T>, b: Point<T>): number {
  const dx: number = a.x - b.x, dy = (a.y - b.y) as number;
  return Math.sqrt(dx * dx + dy * dy);
}
const pairs: Pair[] = [];
for (let i: number = 0; i < 10; i++) pairs.push([{ x: i, y: i }, { x: i + 1, y: i * 2 }] satisfies Pair);
abstract class Shape { abstract area(): number; public name!: string; private readonly id: number = 1; }
let total = pairs.map((p: Pair): number => distance(p[0], p[1])).reduce((a: number, b: number) => a + b, 0);
"#;
    let mut out = String::with_capacity(1 << 20);
    while out.len() < 1 << 20 {
        out.push_str(unit);
    }
    out.push_str("return total;\n");
    out
}

/// One unit of the kind of program a model writes, about 4 KiB: interfaces and type
/// aliases, generic helpers, a type guard, a class, an async retry helper, loops over
/// data, a text table. `{n}` makes its names unique, so
/// units can be repeated in one program (a repeated `const` would not compile).
const UNIT: &str = r#"// --- unit {n} ---
interface FileEntry{n} {
  path: string;
  size: number;
  modified: number;
  tags?: readonly string[];
}
type Summary{n} = { count: number; total: number; largest: FileEntry{n} | null };
type Grouped{n}<T> = Record<string, T[]>;

function groupBy{n}<T, K extends string>(items: readonly T[], key: (item: T) => K): Grouped{n}<T> {
  const out: Grouped{n}<T> = {};
  for (const item of items) {
    const k: K = key(item);
    (out[k] ??= []).push(item);
  }
  return out;
}

function summarize{n}(entries: FileEntry{n}[]): Summary{n} {
  let largest: FileEntry{n} | null = null;
  let total: number = 0;
  for (const entry of entries) {
    total += entry.size;
    if (largest === null || entry.size > largest!.size) largest = entry;
  }
  return { count: entries.length, total, largest } satisfies Summary{n};
}

const extension{n} = (path: string): string => {
  const dot: number = path.lastIndexOf(".");
  return dot < 0 ? "(none)" : path.slice(dot + 1);
};

class Histogram{n}<K extends string | number = string> {
  private readonly counts = new Map<K, number>();
  public total: number = 0;
  add(key: K, by: number = 1): this {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
    this.total += by;
    return this;
  }
  top(n: number): Array<[K, number]> {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  }
}

async function withRetry{n}<T>(attempt: () => Promise<T>, tries: number = 3): Promise<T> {
  let last: unknown;
  for (let i: number = 0; i < tries; i++) {
    try {
      return await attempt();
    } catch (error: unknown) {
      last = error;
    }
  }
  throw last as Error;
}

function formatRow{n}(cells: ReadonlyArray<string | number>, widths: number[]): string {
  return cells
    .map((cell, i: number) => String(cell).padEnd(widths[i] ?? 0))
    .join(" | ")
    .trimEnd();
}

function isLarge{n}(entry: FileEntry{n} | undefined): entry is FileEntry{n} {
  return entry !== undefined && entry.size > 2048;
}

const entries{n}: FileEntry{n}[] = [];
for (let i: number = 0; i < 200; i++) {
  const kind = (["rs", "ts", "md", "toml"] as const)[i % 4];
  entries{n}.push({
    path: `src/module_${i}/file_${i * 7 % 13}.${kind}`,
    size: (i * 7919) % 4096,
    modified: 1_700_000_000 + i * 60,
    tags: i % 3 === 0 ? ["generated"] : undefined,
  });
}

const byExtension{n} = groupBy{n}(entries{n}, (e: FileEntry{n}) => extension{n}(e.path));
const histogram{n} = new Histogram{n}<string>();
for (const [ext, list] of Object.entries(byExtension{n}) as [string, FileEntry{n}[]][]) {
  histogram{n}.add(ext, list.length);
}
const summaries{n}: Record<string, Summary{n}> = {};
for (const ext of Object.keys(byExtension{n})) {
  summaries{n}[ext] = summarize{n}(byExtension{n}[ext]!);
}
const generated{n}: number = entries{n}.filter((e) => e.tags?.includes("generated")).length;
const newest{n} = entries{n}.reduce(
  (best: FileEntry{n} | undefined, e: FileEntry{n}) => (best && best.modified >= e.modified ? best : e),
  undefined,
);
let checksum{n}: number = 0;
for (const [key, count] of histogram{n}.top(10)) {
  checksum{n} = (checksum{n} * 31 + key.length * count) % 1_000_003;
}
const rows{n}: Array<[string, number, number]> = Object.entries(summaries{n}).map(
  ([ext, s]: [string, Summary{n}]): [string, number, number] => [ext, s.count, s.total],
);
const widths{n}: number[] = [8, 6, 10];
const table{n}: string = rows{n}
  .sort((a, b) => b[2] - a[2])
  .map((row) => formatRow{n}(row, widths{n}))
  .join("\n");
const lineCount{n} = await withRetry{n}(async (): Promise<number> => table{n}.split("\n").length);
results.push({
  unit: {n},
  large: entries{n}.filter(isLarge{n}).length,
  tableLines: lineCount{n},
  files: entries{n}.length,
  generated: generated{n},
  newest: newest{n}?.path ?? null,
  largest: Object.values(summaries{n}).map((s) => s.largest?.size ?? 0),
  checksum: checksum{n},
});
"#;

/// A Code Mode program of `units` units (about 4 KiB each) that calls one tool
/// (`tools.noop`) and returns how many units ran.
pub fn program(units: usize) -> String {
    let mut out = String::from(
        "type UnitResult = { unit: number; files: number; checksum: number; [k: string]: unknown };\n\
         const results: UnitResult[] = [];\n",
    );
    for n in 0..units {
        out.push_str(&UNIT.replace("{n}", &n.to_string()));
    }
    out.push_str("const reply = await tools.noop({ units: results.length });\n");
    out.push_str("return { units: results.length, reply };\n");
    out
}
