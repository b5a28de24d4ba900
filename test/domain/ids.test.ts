import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseId } from '../../src/domain/ids.ts';

describe('parseId', () => {
  it('reads every case variant of a UUID as the one lower-case id', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.infiniteStream(fc.boolean()), (id, upper) => {
        const variant = [...id].map((c) => (upper.next().value ? c.toUpperCase() : c)).join('');
        assert.equal(parseId(variant), id.toLowerCase());
      }),
    );
  });

  it('reads anything that is not a UUID as no id', () => {
    for (const value of ['', 'not-a-uuid', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', '0e0f9b3c-1a2b-4c3d-8e4f-5a6b7c8d9e0', ' 0e0f9b3c-1a2b-4c3d-8e4f-5a6b7c8d9e0f', '0e0f9b3c1a2b4c3d8e4f5a6b7c8d9e0f', undefined, null, 42, {}]) {
      assert.equal(parseId(value), undefined, JSON.stringify(value));
    }
  });
});
