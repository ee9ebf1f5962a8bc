/**
 * A map kept to a size: what a long-lived server remembers per pane cannot grow with every pane
 * it ever saw.
 *
 * @module
 */

/** A `Map` of at most `max` entries: a key set goes last, and the oldest goes first when full. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;

  /** A map holding at most `max` entries. */
  constructor(max: number) {
    super();
    this.#max = max;
  }

  /** Sets `key` as the newest entry, dropping the oldest when the map is over its size. */
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.#max) super.delete(this.keys().next().value!);
    return this;
  }
}
