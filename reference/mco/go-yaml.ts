/**
 * YAML text exactly as the render controller hashes it: `ghodss/yaml.Marshal` turns the spec into JSON, reads that
 * back with gopkg.in/yaml.v2 (v2.4.0) and prints it with yaml.v2's emitter (a port of libyaml). The rendered name is
 * an MD5 over these bytes, so every quoting and folding decision of that emitter matters; the `yaml` npm package
 * makes different ones (sequence indentation, which strings it quotes, where it folds long lines).
 *
 * Handles the JSON data model only (objects, arrays, strings, numbers, booleans, null), which is all a JSON round
 * trip can produce. Written from the documented behaviour of yaml.v2 and libyaml, checked against the upstream render
 * controller by the differential tests in test/upstream/.
 */

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
  emitter.node(value, { indent: -1, mappingContext: false, sequenceContext: false });
  return emitter.finish();
}

interface NodeContext {
  /** The indentation of the collection this node sits in (-1 at the root). */
  indent: number;
  mappingContext: boolean;
  sequenceContext: boolean;
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

  node(value: JsonValue, ctx: NodeContext): void {
    if (Array.isArray(value)) return this.sequence(value, ctx);
    if (value !== null && typeof value === 'object') return this.mapping(value, ctx);
    this.scalar(value, ctx);
  }

  private mapping(value: { [key: string]: JsonValue }, ctx: NodeContext): void {
    const keys = Object.keys(value).sort(compareYamlKeys);
    if (keys.length === 0) return this.emptyFlow('{', '}');
    const saved = this.indent;
    this.increaseIndent(false);
    for (const key of keys) {
      this.writeIndent();
      this.scalarText(key, true);
      this.writeIndicator(':', false, false, false);
      this.node(value[key]!, { indent: this.indent, mappingContext: true, sequenceContext: false });
    }
    this.indent = saved;
    void ctx;
  }

  private sequence(value: JsonValue[], ctx: NodeContext): void {
    if (value.length === 0) return this.emptyFlow('[', ']');
    const saved = this.indent;
    // a sequence that is a mapping's value is not indented further ("key:\n- item")
    this.increaseIndent(ctx.mappingContext && !this.indention);
    for (const item of value) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, { indent: this.indent, mappingContext: false, sequenceContext: true });
    }
    this.indent = saved;
  }

  private emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private scalar(value: null | boolean | number | string, ctx: NodeContext): void {
    void ctx;
    const saved = this.indent;
    this.increaseIndent(false);
    if (value === null) this.writePlain('null', true);
    else if (typeof value === 'boolean') this.writePlain(value ? 'true' : 'false', true);
    else if (typeof value === 'number') this.writePlain(formatNumber(value), true);
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

function formatNumber(value: number): string {
  // JSON numbers from the Go structs are integers (modes, ids, sizes); yaml.v2 prints them in decimal
  if (Number.isInteger(value)) return String(value);
  return String(value);
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

// ---- yaml.v2 resolve(): would this text read back as something other than a string when printed plain? ----

const YAML11_SPECIAL = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  '<<',
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

export function resolvesAsString(text: string): boolean {
  if (text === '') return false;
  const first = text[0]!;
  const hint = '+-0123456789'.includes(first) ? 'D' : 'yYnNtTfFoO~'.includes(first) ? 'M' : first === '.' ? '.' : first === '<' ? 'M' : '';
  if (!hint) return true;
  if (YAML11_SPECIAL.has(text)) return false;
  if (hint === 'M') return true;
  if (hint === '.') return !goParseFloatOk(text);
  if (isTimestamp(text)) return false;
  const plain = text.replace(/_/g, '');
  if (goParseIntOk(plain)) return false;
  if (YAML_STYLE_FLOAT.test(plain) && goParseFloatOk(plain)) return false;
  if (plain.startsWith('0b') && /^[01]+$/.test(plain.slice(2)) && plain.length > 2) return false;
  if (plain.startsWith('-0b') && /^[01]+$/.test(plain.slice(3)) && plain.length > 3) return false;
  return true;
}

/** strconv.ParseInt(s, 0, 64) or ParseUint succeeding (underscores already removed by the caller). */
function goParseIntOk(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const body = m[2]!;
  let value: bigint;
  if (/^0[xX]/.test(body)) value = BigInt(body);
  else if (/^0[oO]/.test(body)) value = BigInt(`0o${body.slice(2)}`);
  else if (/^0[bB]/.test(body)) value = BigInt(`0b${body.slice(2)}`);
  else if (body.length > 1 && body.startsWith('0')) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  if (m[1] === '-') return value <= 2n ** 63n;
  return value <= 2n ** 64n - 1n;
}

/** strconv.ParseFloat(s, 64) accepting the text (decimal, hex mantissa, inf/nan; out of range still fails). */
function goParseFloatOk(s: string): boolean {
  if (/^[+-]?(inf|infinity|nan)$/i.test(s)) return true;
  if (/^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+$/.test(s)) return true;
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(s)) return false;
  return Number.isFinite(Number(s)) || /^[+-]?0*\.?0*([eE]|$)/.test(s);
}

/** The four timestamp layouts yaml.v2 tries on plain scalars that start with four digits and a dash. */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  const date = '[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}';
  const time = '[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\\.[0-9]+)?';
  const zone = '(Z|[+-][0-9]{2}:[0-9]{2})';
  const layouts = [new RegExp(`^${date}[Tt]${time}${zone}$`), new RegExp(`^${date} ${time}$`), new RegExp(`^${date}$`)];
  if (!layouts.some((re) => re.test(s))) return false;
  const [y, mo, d] = s.slice(0, 10).split(/[-Tt ]/).map(Number);
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= daysIn(y!, mo!);
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isBase60Float(s: string): boolean {
  if (s === '' || !/^[-+0-9]/.test(s) || !s.includes(':')) return false;
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}
