import { z } from 'zod';
import { requiredString } from '../auth/rules.ts';
import { containsOffensiveWord } from '../auth/offensiveWords.ts';
import type { ClubRecord, InvitationRecord, MemberRecord } from '../db/clubs.ts';
import { textProblems } from '../domain/text.ts';

/** The schemas of DESIGN 2.10 "Clubs": request bodies and the objects the routes answer with. */

export const CLUB_ROLES = ['owner', 'member', 'invited'] as const;
export const MEMBER_ROLES = ['owner', 'member'] as const;
export const CLUB_NAME_MIN = 3;
export const CLUB_NAME_MAX = 40;
export const CLUB_DESCRIPTION_MAX = 2000;

/** The stored form of a name: trimmed, each run of spaces one space. */
export const normalizeClubName = (raw: string) => raw.trim().replace(/ {2,}/g, ' ');

export function clubNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length < CLUB_NAME_MIN || name.length > CLUB_NAME_MAX) problems.push(`must be ${CLUB_NAME_MIN} to ${CLUB_NAME_MAX} characters`);
  const hidden = textProblems(name);
  if (hidden.length > 0) problems.push(...hidden);
  else if (!/^[A-Za-z0-9 _-]*$/.test(name)) problems.push('may contain only ASCII letters, digits, spaces, underscores and hyphens');
  // The word list splits names at underscores; spaces and hyphens separate words here just the same.
  else if (containsOffensiveWord(name.replace(/[ -]/g, '_'))) problems.push('must not contain offensive words');
  return problems;
}

export const ClubName = requiredString()
  .overwrite(normalizeClubName)
  .superRefine((name, ctx) => {
    for (const message of clubNameProblems(name)) ctx.addIssue({ code: 'custom', message });
  })
  .meta({
    minLength: CLUB_NAME_MIN,
    pattern: '^[A-Za-z0-9 _-]+$',
    description: `trimmed and runs of spaces collapsed, then ${CLUB_NAME_MIN}–${CLUB_NAME_MAX} ASCII letters, digits, spaces, _ and -; unique ignoring case`,
  });

export const CreateClubBody = z.object({
  name: ClubName,
  description: z
    .string({ error: 'must be a string or null' })
    .max(CLUB_DESCRIPTION_MAX, `must be at most ${CLUB_DESCRIPTION_MAX} characters`)
    // Line breaks and tabs belong in a description; other control characters (NUL) do not.
    .superRefine((s, ctx) => {
      for (const message of textProblems(s, { lineBreaks: true })) ctx.addIssue({ code: 'custom', message });
    })
    .nullable()
    .default(null),
  open: z.boolean({ error: 'must be a boolean' }).default(true).meta({ description: 'anyone may join an open club; a closed one needs an invitation' }),
});
export type CreateClubBody = z.infer<typeof CreateClubBody>;

export const InviteBody = z.object({
  user_id: requiredString().meta({ description: 'the user to invite; an id that names no user (malformed included) is USER_NOT_FOUND' }),
});
export type InviteBody = z.infer<typeof InviteBody>;

const Who = z.object({ id: z.uuid(), username: z.string() });

export const ClubView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  open: z.boolean(),
  owner: Who,
  member_count: z.number().int().meta({ description: 'the owner included' }),
  created_at: z.iso.datetime(),
  role: z.enum(CLUB_ROLES).nullable().meta({ description: "the caller's: null without a token or without a relation to the club" }),
});
export type ClubView = z.infer<typeof ClubView>;

export const ClubMemberView = z.object({ user: Who, role: z.enum(MEMBER_ROLES), joined_at: z.iso.datetime() });
export type ClubMemberView = z.infer<typeof ClubMemberView>;

export const ClubInvitationView = z.object({ club_id: z.uuid(), user: Who, invited_at: z.iso.datetime() });
export type ClubInvitationView = z.infer<typeof ClubInvitationView>;

export const formatClub = (c: ClubRecord): ClubView => ({
  id: c.id,
  name: c.name,
  description: c.description,
  open: c.open,
  owner: { id: c.ownerId, username: c.ownerUsername },
  member_count: c.memberCount,
  created_at: c.createdAt.toISOString(),
  role: c.role,
});

export const formatMember = (m: MemberRecord): ClubMemberView => ({
  user: { id: m.userId, username: m.username },
  role: m.role,
  joined_at: m.joinedAt.toISOString(),
});

export const formatInvitation = (i: InvitationRecord): ClubInvitationView => ({
  club_id: i.clubId,
  user: { id: i.userId, username: i.username },
  invited_at: i.invitedAt.toISOString(),
});
