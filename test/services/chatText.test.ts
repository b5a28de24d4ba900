import assert from 'node:assert/strict';
import { maskOffensiveWords } from '../../src/auth/offensiveWords.ts';
import { ChatText, chatTextProblems } from '../../src/services/chatViews.ts';

// The text rules of DESIGN 2.11 "Chat", pure: what a message may say and what is masked.

describe('chat text', () => {
  it('masks each offensive word with as many *, whatever its case or lookalike digits', () => {
    assert.equal(maskOffensiveWords('what the SHIT'), 'what the ****');
    assert.equal(maskOffensiveWords('sh1t and $hit'), '**** and ****');
    assert.equal(maskOffensiveWords('you ass!'), 'you ***!');
  });

  it('masks a listed word inside a longer one, overlapping ones whole', () => {
    assert.equal(maskOffensiveWords('fuckfuck'), '********');
    assert.equal(maskOffensiveWords('motherfucker'), '**********er');
  });

  it('leaves innocent words alone: whole-word entries inside others, and the allowed names', () => {
    for (const text of ['class assessment', 'grapes and therapists', 'Scunthorpe United', 'a cocktail', 'good game, well played']) {
      assert.equal(maskOffensiveWords(text), text);
    }
  });

  it('keeps letters outside ASCII where they are', () => {
    assert.equal(maskOffensiveWords('héllo fuck ♞ 👩‍💻 crap'), 'héllo **** ♞ 👩‍💻 crap');
  });

  it('normalises, trims and masks through the schema, styled letters included', () => {
    assert.equal(ChatText.parse('  𝐬𝐡𝐢𝐭  '), '****');
    assert.equal(ChatText.parse('ｇｇ'), 'gg');
  });

  it('counts characters, not UTF-16 units', () => {
    assert.deepEqual(chatTextProblems('♞'.repeat(140)), []);
    assert.deepEqual(chatTextProblems('😀'.repeat(140)), []);
    assert.equal(chatTextProblems('😀'.repeat(141)).length, 1);
    assert.equal(chatTextProblems('').length, 1);
  });

  it('refuses control and format characters but an emoji joiner between emoji', () => {
    assert.deepEqual(chatTextProblems('👨‍👩‍👧 family'), []);
    assert.deepEqual(chatTextProblems('Кто играет? ok'), []);
    for (const text of ['a\u200Db', 'a\u200Bb', 'a\u202Eb', 'a\u0000b', 'a\nb', 'a\u2028b']) assert.ok(chatTextProblems(text).length > 0, JSON.stringify(text));
  });
});
