import assert from 'node:assert/strict';
import { readProtocolDoc } from '../../src/http/protocolDoc.ts';

const DOC = `# Socket protocols

## Rooms

Join with a [token](api.md#personal-access-tokens), see [the
design](design.md#24-games).

\`\`\`sh
# not a heading: [kept](as-is.md)
\`\`\`

### Lobby

Seeks.

## Close codes

| 4503 | room |

## Tables

| \`claim\` | \`{result: "win" \\| "draw"}\` |
`;

describe('the protocol prose of the API reference', () => {
  const section = readProtocolDoc(DOC);

  it('takes the text under a heading down to the next heading, with its links as their text', () => {
    assert.equal(section('Rooms'), 'Join with a token, see the\ndesign.\n\n```sh\n# not a heading: [kept](as-is.md)\n```');
  });

  it('takes a whole section with its subsections down to the next heading of its level', () => {
    assert.match(section('Rooms', 'whole'), /### Lobby\n\nSeeks\.$/);
    assert.equal(section('Close codes', 'whole'), '| 4503 | room |');
  });

  it('writes a code span with an escaped pipe in a table row as HTML code, which Swagger UI does not split there', () => {
    assert.equal(section('Tables'), '| `claim` | <code>{result: "win" &#124; "draw"}</code> |');
  });

  it('throws for a heading the document does not have', () => {
    assert.throws(() => section('Matchmaking'), /has 0 headings "Matchmaking"/);
  });
});
