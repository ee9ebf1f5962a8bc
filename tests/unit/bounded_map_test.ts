import { assertEquals } from "../deps.ts";
import { BoundedMap } from "../../src/util/bounded_map.ts";

Deno.test("BoundedMap keeps its newest entries: a key set again is newest, the oldest goes", () => {
  const map = new BoundedMap<string, number>(2);
  map.set("a", 1).set("b", 2).set("a", 3).set("c", 4);
  assertEquals([...map], [["a", 3], ["c", 4]]);
});
