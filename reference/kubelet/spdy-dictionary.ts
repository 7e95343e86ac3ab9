/**
 * SPDY/3's header compression dictionary (draft-mbelshe-httpbis-spdy-00 §2.6.10.1): the zlib preset dictionary both
 * sides load before the first header block of a connection. The spec gives it as bytes: each of these words with its
 * length as a 32-bit big-endian prefix, then the text after them unprefixed. A client (spdystream, in client-go) that
 * compressed with another dictionary could not be read: the zlib stream names the dictionary by its Adler-32.
 */
const WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding',
  'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base',
  'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5', 'content-range',
  'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since',
  'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma',
  'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get',
  'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin',
];

const TAIL = [
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Au',
  'thoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidd',
  'en404 Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr Ma',
  'y Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,imag',
  'e/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,publicpri',
  'vatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.',
].join('');

/** The dictionary's bytes (all ASCII), built once. */
export const SPDY3_DICTIONARY: Uint8Array = (() => {
  const ascii = new TextEncoder();
  const parts = WORDS.flatMap((w) => [new Uint8Array([0, 0, (w.length >> 8) & 0xff, w.length & 0xff]), ascii.encode(w)]);
  parts.push(ascii.encode(TAIL));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
})();
