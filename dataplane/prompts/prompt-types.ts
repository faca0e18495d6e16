/** A chat message of a prompt version: a template whose `{{name}}` placeholders are variables. */
export interface TemplateMessage {
  role: string;
  content: string;
  name?: string;
}

/** Model parameters a version may set; a caller's own fields in the request take precedence. */
export type PromptParams = Record<string, unknown>;

export type VersionStatus = "draft" | "published";

export interface PromptVersion {
  customerId: string;
  slug: string;
  version: number;
  status: VersionStatus;
  messages: TemplateMessage[];
  variables: string[];
  model: string | null;
  params: PromptParams;
  note: string;
  createdAt: Date;
  updatedAt: Date;
  publishedAt: Date | null;
}

export interface AbArm {
  version: number;
  weight: number;
}

/** An A/B test between published versions of one prompt. */
export interface PromptAbTest {
  id: string;
  arms: AbArm[];
  /** The same caller (API key, and the request's `user` when given) always gets the same arm. */
  sticky: boolean;
  enabled: boolean;
  startedAt: string;
  endedAt: string | null;
}

export interface Prompt {
  customerId: string;
  slug: string;
  name: string;
  description: string;
  tags: string[];
  abTest: PromptAbTest | null;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Highest version number, and highest published one (null when none). */
  latestVersion: number | null;
  publishedVersion: number | null;
}
