/**
 * The address a request came from. Without `trustProxy` it is the socket's peer as the runtime reports it;
 * with it, the last `X-Forwarded-For` entry, the one the (single, trusted) reverse proxy appended; earlier
 * entries are whatever the client chose to send. Undefined when the runtime cannot tell.
 */
export function clientAddressOf(request: Request, peerAddress: string | undefined, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for');
    const last = forwarded?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return peerAddress;
}
