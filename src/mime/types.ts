// The parsed form of one received message: what parse.ts produces from raw RFC 5322 bytes and
// what ingest stores. Parsing never throws: a failure leaves parseError set and the rest best-effort.
import type { Link } from "./links";

export interface Address {
  email: string;
  name: string;
}

export interface ParsedAttachment {
  /** 0-based position among the message's attachments. */
  position: number;
  filename: string;
  /** Content type exactly as the sender declared it (lowercased, no parameters). */
  declaredContentType: string;
  /** Content type we serve it with (sniffed/allow-listed; application/octet-stream when unsafe). */
  servedContentType: string;
  disposition: "attachment" | "inline";
  contentId: string | null;
  /** The bytes; emptied by ingest once a large attachment is durable in the blob store (size keeps the count). */
  content: Uint8Array;
  /** Size of the decoded bytes. */
  size: number;
  sha256: string;
}

export interface HeaderLine {
  name: string;
  value: string;
}

export interface ParsedMessage {
  from: Address;
  to: Address[];
  cc: Address[];
  subject: string;
  /** Plain-text preview, whitespace-collapsed, at most 200 characters. */
  preview: string;
  text: string | null;
  html: string | null;
  /** Every received header in order, bounded (see headersTruncated). */
  headers: HeaderLine[];
  headersTruncated: boolean;
  messageId: string | null;
  sentAt: string | null;
  /** Distinct URLs from the text and HTML bodies with their anchor text, in order of first appearance. */
  links: Link[];
  /** Verification codes found, most likely first. */
  codes: string[];
  attachments: ParsedAttachment[];
  /** Decoded size: text + html + attachment bytes (the raw size is the blob's). */
  logicalSizeBytes: number;
  parseError: string | null;
}
