// One budget of received bytes in flight, shared by every channel that hands mail to ingest (SMTP,
// LMTP, HTTP import): bytes count from their arrival until the message's commit answered (or it
// was refused). When a reservation does not fit, the channel refuses the message with a temporary
// error (SMTP 452 4.3.1, HTTP 503) instead of letting the process grow without bound: a sender
// retries later, while memory, spool space and parse queues stay bounded (docs/security.md).
export class InflightBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get remaining(): number {
    return this.limit - this.used;
  }

  get inUse(): number {
    return this.used;
  }

  /** Takes n bytes if they fit; false (nothing taken) when they do not. */
  tryReserve(n: number): boolean {
    if (n > this.limit - this.used) return false;
    this.used += n;
    return true;
  }

  release(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}
