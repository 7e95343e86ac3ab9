/**
 * YAML text exactly as the render controller hashes it: `ghodss/yaml.Marshal` turns the spec into JSON, reads that
 * back with gopkg.in/yaml.v2 (v2.4.0) and prints it with yaml.v2's emitter (a port of libyaml). The rendered name is
 * an MD5 over these bytes, so every quoting and folding decision of that emitter matters; the `yaml` npm package
 * makes different ones (sequence indentation, which strings it quotes, where it folds long lines).
 *
 * Handles the JSON data model only (objects, arrays, strings, numbers, booleans, null), which is all a JSON round
 * trip can produce. Written from the documented behaviour of yaml.v2 and libyaml, checked against the upstream render
 * controller by the differential tests in test/reference/upstream/.
 */
import { isBase60Float, resolvesAsString } from './go-yaml-resolve.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

/** yaml.v2 sorts mapping keys with a "natural" order: runs of digits compare as numbers, non-letters before letters. */
export function compareYamlKeys(a: string, b: string): number {
  // the keys of Go structs are ASCII letters, where the natural order is plain code-point order
  if (ASCII_LETTERS.test(a) && ASCII_LETTERS.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return codePoint(ar[i]!) - codePoint(br[i]!);
    if (al || bl) return bl ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an - bn;
    if (ai !== bi) return ai - bi;
    return codePoint(ar[i]!) - codePoint(br[i]!);
  }
  return ar.length - br.length;
}

const ASCII_LETTERS = /^[A-Za-z]*$/;
const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string): boolean => /\p{Nd}/u.test(c);
const codePoint = (c: string): number => c.codePointAt(0)!;

/** Print a JSON value the way `ghodss/yaml.Marshal` does (document text with the final newline). */
export function marshalGoYaml(value: JsonValue): string {
  const emitter = new Emitter();
  emitter.node(value, false);
  return emitter.finish();
}

class Emitter {
  private out = '';
  private column = 0;
  /** The last thing written was whitespace (or nothing): a following token needs no separating space. */
  private whitespace = true;
  /** Only indentation has been written on this line so far. */
  private indention = true;
  private indent = -1;

  finish(): string {
    // document end: the emitter closes the last line
    if (this.column > 0) this.putBreak();
    return this.out;
  }

  /** `mappingValue`: the node is the value of a mapping entry (a sequence there is not indented further). */
  node(value: JsonValue, mappingValue: boolean): void {
    if (Array.isArray(value)) return this.sequence(value, mappingValue);
    if (value !== null && typeof value === 'object') return this.mapping(value);
    this.scalar(value);
  }

  private mapping(value: { [key: string]: JsonValue }): void {
    const keys = Object.keys(value).sort(compareYamlKeys);
    if (keys.length === 0) return this.emptyFlow('{', '}');
    const saved = this.indent;
    this.increaseIndent(false);
    for (const key of keys) {
      this.writeIndent();
      this.scalarText(key, true);
      this.writeIndicator(':', false, false, false);
      this.node(value[key]!, true);
    }
    this.indent = saved;
  }

  private sequence(value: JsonValue[], mappingValue: boolean): void {
    if (value.length === 0) return this.emptyFlow('[', ']');
    const saved = this.indent;
    // a sequence that is a mapping's value is not indented further ("key:\n- item")
    this.increaseIndent(mappingValue && !this.indention);
    for (const item of value) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, false);
    }
    this.indent = saved;
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private scalar(value: null | boolean | number | string): void {
    const saved = this.indent;
    this.increaseIndent(false);
    if (value === null) this.writePlain('null', true);
    else if (typeof value === 'boolean') this.writePlain(value ? 'true' : 'false', true);
    else if (typeof value === 'number') this.writePlain(String(value), true); // integers: modes, ids, sizes
    else this.scalarText(value, false);
    this.indent = saved;
  }

  /** The style yaml.v2 asks for, then the emitter's own downgrade when the text does not allow it. */
  private scalarText(text: string, simpleKey: boolean): void {
    const canUsePlain = resolvesAsString(text) && !isBase60Float(text);
    let style: 'plain' | 'single' | 'double' | 'literal' = text.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
    const a = analyzeScalar(text);
    if (style === 'plain') {
      if (!a.blockPlainAllowed || (text.length === 0 && simpleKey)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
    const allowBreaks = !simpleKey;
    switch (style) {
      case 'plain':
        return this.writePlain(text, allowBreaks);
      case 'single':
        return this.writeSingleQuoted(text, allowBreaks);
      case 'double':
        return this.writeDoubleQuoted(text, allowBreaks);
      case 'literal':
        return this.writeLiteral(text);
    }
  }

  private increaseIndent(indentless: boolean): void {
    if (this.indent < 0) this.indent = 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private put(text: string): void {
    this.out += text;
    this.column += text.length === 1 ? 1 : [...text].length;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private writePlain(text: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') {
          this.writeIndent();
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(text: string, allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1 && chars[i + 1] !== ' ') {
          this.writeIndent();
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        if (c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.writeIndicator("'", false, false, false);
  }

  private writeDoubleQuoted(text: string, allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      const cp = codePoint(c);
      if (!isPrintable(cp) || cp === 0xfeff || isBreak(cp) || c === '"' || c === '\\') {
        this.put(escapeChar(cp));
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
          this.writeIndent();
          if (chars[i + 1] === ' ') this.put('\\');
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
  }

  private writeLiteral(text: string): void {
    this.writeIndicator('|', true, false, false);
    const chars = [...text];
    const first = chars.length > 0 ? codePoint(chars[0]!) : 0;
    if (chars.length > 0 && (first === 0x20 || isBreak(first))) this.put(String(BEST_INDENT));
    let chomp = '';
    if (chars.length === 0) chomp = '-';
    else if (!isBreak(codePoint(chars[chars.length - 1]!))) chomp = '-';
    else if (chars.length === 1 || isBreak(codePoint(chars[chars.length - 2]!))) chomp = '+';
    if (chomp) this.put(chomp);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(codePoint(c))) {
        if (c === '\n') this.putBreak();
        else {
          this.out += c;
          this.column = 0;
        }
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

interface ScalarAnalysis {
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isBreak = (cp: number): boolean => cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
const isBlankz = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\t' || c === '\0' || isBreak(codePoint(c));

/** libyaml's is_printable: tab and most control characters are not, nor are characters beyond the BMP. */
function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

/** yaml_emitter_analyze_scalar, reduced to the flags the block context uses. */
function analyzeScalar(text: string): ScalarAnalysis {
  if (text.length === 0) return { blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const chars = [...text];
  let blockIndicators = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let lineBreaks = false;
  let specialCharacters = false;
  if (text.startsWith('---') || text.startsWith('...')) blockIndicators = true;
  let precededByWhitespace = true;
  let followedByWhitespace = isBlankz(chars[1]);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const cp = codePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      if ((c === '?' || c === ':') && followedByWhitespace) blockIndicators = true;
      if (c === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (c === ':' && followedByWhitespace) blockIndicators = true;
      if (c === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (!isPrintable(cp)) specialCharacters = true;
    if (isBreak(cp)) lineBreaks = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(cp)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(c);
    followedByWhitespace = isBlankz(chars[i + 2]);
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

function escapeChar(cp: number): string {
  switch (cp) {
    case 0x00:
      return '\\0';
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0b:
      return '\\v';
    case 0x0c:
      return '\\f';
    case 0x0d:
      return '\\r';
    case 0x1b:
      return '\\e';
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    case 0x85:
      return '\\N';
    case 0xa0:
      return '\\_';
    case 0x2028:
      return '\\L';
    case 0x2029:
      return '\\P';
  }
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}
