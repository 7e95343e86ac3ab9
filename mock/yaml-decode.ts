/**
 * A YAML request body to a plain value, bounded as kube-apiserver's reader (go-yaml v2, through sigs.k8s.io/yaml)
 * bounds it, so no document can take the server down:
 *
 * - nesting: the `yaml` package's lexer and parser keep their own stacks, but its composer recurses once per level.
 *   The parser is driven here one lexeme at a time and stopped as soon as its stack is MAX_YAML_DEPTH collections
 *   deep, before the composer sees the document (a 3 MiB body of `[` costs a millisecond, not a stack overflow);
 * - aliases: each alias is expanded into a copy of its anchor's value, as go-yaml does, counting every node decoded
 *   and every node decoded through an alias; go-yaml's own rule (decode.go, allowedAliasRatio) refuses a document
 *   where aliases make too much of it (`billion laughs`), part way through, so the expansion stops early too;
 * - only the first document is read, as go-yaml's Unmarshal reads it.
 *
 * The value is built here rather than by the package's toJS: that one resolves each alias by a scan of every anchor
 * and alias of the document (quadratic in their number) and shares one object between an anchor and its aliases,
 * where the server mutates what it decoded.
 */
import { Composer, isAlias, isMap, isPair, isScalar, isSeq, Lexer, Parser, CST, type Alias, type Document, type Node as YamlNode } from 'yaml';
import { ApiError } from './errors.js';
import { MAX_YAML_DEPTH, tooDeep } from './decode-limits.js';

export function decodeYaml(text: string): unknown {
  const doc = firstDocument(boundedTokens(text), text.length);
  if (doc.errors.length) throw invalidYaml(doc.errors[0]!.message.split('\n')[0]!);
  return new Expansion(doc).value();
}

const invalidYaml = (why: string) => new ApiError(400, 'BadRequest', `the request body is not valid YAML: ${why}`);

/** The CST of `text`, refused with 400 the moment the parser holds more than MAX_YAML_DEPTH collections open. */
function boundedTokens(text: string): CST.Token[] {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack is the document, the open collections, and at most one scalar on top.
    if (parser.stack.length > MAX_YAML_DEPTH + 1 && parser.stack.length - 1 - (CST.isCollection(parser.stack.at(-1)) ? 0 : 1) > MAX_YAML_DEPTH) {
      throw tooDeep('YAML', MAX_YAML_DEPTH);
    }
  }
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

function firstDocument(tokens: CST.Token[], length: number): Document.Parsed {
  for (const doc of new Composer().compose(tokens, true, length)) return doc;
  throw invalidYaml('no document'); // compose(…, forceDoc) always yields one; kept for the type checker
}

// go-yaml v2's bound on alias expansion (decode.go): up to 400,000 nodes decoded, 99% may come from aliases; from
// there to 4,000,000 the share falls to 10%. It applies once more than 100 nodes came through aliases and more
// than 1,000 were decoded.
const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

function allowedAliasRatio(decoded: number): number {
  if (decoded <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decoded >= ALIAS_RATIO_RANGE_HIGH) return 0.10;
  return 0.99 - 0.89 * ((decoded - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
}

/** One document turned into a value: aliases resolved, then expanded within go-yaml's bound. */
class Expansion {
  private readonly targets = new Map<Alias, YamlNode>();
  private readonly expanding = new Set<Alias>();
  private decoded = 0;
  private viaAliases = 0;

  constructor(private readonly doc: Document.Parsed) {
    this.resolve(doc.contents, new Map());
  }

  value(): unknown {
    this.count(false); // the document node, which go-yaml counts too
    return this.doc.contents === null ? null : this.convert(this.doc.contents, 1, false);
  }

  /**
   * Each alias's node: the last one before it in document order with that anchor, an enclosing one included (an
   * anchor is defined where its node starts), as go-yaml's parser records anchors. Depth is bounded by the parse.
   */
  private resolve(node: unknown, anchors: Map<string, YamlNode>): void {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) throw invalidYaml(`yaml: unknown anchor '${node.source}' referenced`);
      this.targets.set(node, target);
      return;
    }
    if (isScalar(node) || isMap(node) || isSeq(node)) { if (node.anchor) anchors.set(node.anchor, node); }
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) { this.resolve(item.key, anchors); this.resolve(item.value, anchors); } else this.resolve(item, anchors);
      }
    }
  }

  private count(viaAlias: boolean): void {
    this.decoded++;
    if (viaAlias) this.viaAliases++;
    if (this.viaAliases > 100 && this.decoded > 1000 && this.viaAliases / this.decoded > allowedAliasRatio(this.decoded)) {
      throw invalidYaml('yaml: document contains excessive aliasing');
    }
  }

  /** The value of `node` at `depth` (1 for the document's top), aliases copied; depth counts what aliases add too. */
  private convert(node: unknown, depth: number, viaAlias: boolean): unknown {
    this.count(viaAlias);
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      if (this.expanding.has(node)) throw invalidYaml(`yaml: anchor '${node.source}' value contains itself`);
      this.expanding.add(node);
      try {
        return this.convert(this.targets.get(node), depth, true);
      } finally {
        this.expanding.delete(node);
      }
    }
    if (isScalar(node)) return node.value;
    if (depth > MAX_YAML_DEPTH) throw tooDeep('YAML', MAX_YAML_DEPTH);
    if (isSeq(node)) return node.items.map((item) => this.convert(item, depth + 1, viaAlias));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = this.key(pair.key, viaAlias);
        const value = this.convert(pair.value, depth + 1, viaAlias);
        // An own property even for "__proto__", as JSON.parse makes it, never the prototype.
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    throw invalidYaml('yaml: unsupported node');
  }

  /** A map key as sigs.k8s.io/yaml turns it into a JSON one: strings, numbers and booleans; null or a collection is an error. */
  private key(node: unknown, viaAlias: boolean): string {
    this.count(viaAlias);
    const target = isAlias(node) ? this.targets.get(node) : node;
    if (isScalar(target) && target.value !== null && ['string', 'number', 'boolean'].includes(typeof target.value)) return String(target.value);
    throw invalidYaml(`yaml: unsupported map key: ${isScalar(target) ? 'null' : 'a collection'}`);
  }
}
