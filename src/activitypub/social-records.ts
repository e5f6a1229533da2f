/** What the owner's side of ActivityPub (social.ts) keeps and answers: followers, follows, likes, notes, pages. */
/** A remote actor as this server knows it. */
export interface RemoteActor {
  id: string;
  inbox: string;
  sharedInbox?: string;
}

export interface FollowerRecord extends RemoteActor {
  /** The id of their Follow, which an Undo names. */
  followId: string;
  since: string;
}

export interface FollowingRecord extends RemoteActor {
  followId: string;
  /** `pending` until the followed actor answers with Accept. */
  state: 'pending' | 'accepted';
  since: string;
}

/** One of the owner's Likes. */
export interface LikedRecord {
  /** The Like's own id, which an Undo names. */
  id: string;
  object: string;
  /** The liked object's author, who is sent the Like. */
  author: string;
  since: string;
}

export interface NoteAttachment {
  url: string;
  mediaType: string;
  /** Alt text. */
  description: string | null;
  width?: number;
  height?: number;
}

/** What the owner posts. */
export interface NoteInput {
  /** HTML; made safe before it is kept. */
  content: string;
  inReplyTo?: string;
  /** A content warning (plain text, shown before the content); marks the Note sensitive. */
  summary?: string;
  sensitive?: boolean;
  attachments?: readonly NoteAttachment[];
  hashtags?: readonly { name: string; href: string }[];
  /** Actors named in the Note (the author of a post replied to): `Mention` tags, and they are sent the Note. */
  mentions?: readonly { href: string; name: string }[];
}

export interface Page<T> {
  items: T[];
  total: number;
}

export interface PageRequest {
  offset?: number;
  limit?: number;
}
