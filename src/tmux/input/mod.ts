/**
 * Typing into a pane, above the objects and the readers it needs: keys and pasted text, each
 * refused in a mode unless forced and where a person may be typing, each returning the cursor a
 * wait counts the answer from.
 *
 * @module
 */

export {
  checkKeyNames,
  type PasteOptions,
  pasteText,
  sendKeys,
  type SendKeysOptions,
  type TypedInput,
} from "./typing.ts";
