import http from 'node:http';

/** A POST whose answer is held open (Lichess's board seek): its status, what came, how it ended. */
export type HeldPost = { status: number; contentType: string | undefined; body: Promise<string>; ended: Promise<'complete' | 'aborted'>; close: () => void };

/** Posts `body` to `url` with a plain HTTP client, as a Board API client does, and reads the answer to its end. */
export async function heldPost(url: string, headers: Record<string, string>, body: string): Promise<HeldPost> {
  const req = http.request(url, { method: 'POST', headers });
  req.end(body);
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.once('response', resolve).once('error', reject));
  res.setEncoding('utf8');
  let text = '';
  let complete = false;
  res.on('data', (c: string) => (text += c));
  res.on('end', () => (complete = true));
  res.on('error', () => {});
  const ended = new Promise<'complete' | 'aborted'>((resolve) => res.on('close', () => resolve(complete ? 'complete' : 'aborted')));
  return { status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: ended.then(() => text), ended, close: () => req.destroy() };
}
