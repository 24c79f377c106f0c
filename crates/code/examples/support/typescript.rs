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
