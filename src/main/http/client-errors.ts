// Requests Node's HTTP parser refuses before any app code sees them (a malformed request
// line, Content-Length together with chunked, headers over 16 KB) and CONNECT: answered with
// a JSON body in the server's own error shape instead of Node's empty reply.
import type http from 'node:http';
import type { Duplex } from 'node:stream';

/** The body for a refusal, in the surface's shape. */
export type RefusalBody = (status: number, message: string) => unknown;

function reply(socket: Duplex, status: number, reason: string, body: unknown): void {
  if (!socket.writable) return void socket.destroy();
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

export function answerClientErrors(server: http.Server, bodyFor: RefusalBody): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    if (err.code === 'HPE_HEADER_OVERFLOW')
      return reply(socket, 431, 'Request Header Fields Too Large', bodyFor(431, 'the request headers are larger than 16 KB'));
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return reply(socket, 408, 'Request Timeout', bodyFor(408, 'the request took too long to arrive'));
    reply(socket, 400, 'Bad Request', bodyFor(400, 'the request is not valid HTTP/1.1'));
  });
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    reply(socket, 405, 'Method Not Allowed', bodyFor(405, 'CONNECT is not supported: this is not a proxy'));
  });
}
