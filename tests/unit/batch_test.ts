import { assertEquals } from "../deps.ts";
import { batchElements, isBatch } from "../../src/http/batch.ts";

Deno.test("batches are told and counted without parsing: strings and nesting skipped", () => {
  assertEquals([isBatch(" \n[1]"), isBatch('{"a":[1]}'), isBatch("")], [true, false, false]);
  assertEquals(batchElements("[]", 100), 0);
  assertEquals(batchElements(" [ ] ", 100), 0);
  assertEquals(batchElements("[{}]", 100), 1);
  assertEquals(batchElements('[{"a":"x,y]"},{}]', 100), 2);
  assertEquals(batchElements('["a\\",b", 1]', 100), 2);
  assertEquals(batchElements('[[1,2],[3],{"k":[4,5]}]', 100), 3);
  // Counted no further than one past the most: four megabytes cost one pass, stopped early.
  assertEquals(batchElements("[" + "{},".repeat(1_000_000) + "{}]", 100), 101);
  assertEquals(batchElements("[" + "{},".repeat(99) + "{}]", 100), 100);
});
