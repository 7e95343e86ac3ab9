/**
 * yaml.v2's resolve() for the printer: whether a string, printed plain, would read back as something else (a YAML 1.1
 * bool, null, int, float, timestamp or base-60 float), in which case yaml.v2 quotes it.
 */

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

export function isBase60Float(s: string): boolean {
  if (s === '' || !/^[-+0-9]/.test(s) || !s.includes(':')) return false;
  return /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/.test(s);
}
