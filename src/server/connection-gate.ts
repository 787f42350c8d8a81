/**
 * Caps on the connections a port keeps open, in all and per remote address,
 * so no one caller (or a crowd of silent sockets) can use up the process's
 * file descriptors. A connection over a cap is closed on arrival: cheaper
 * than anything it could be told, and a well-behaved client retries.
 */
import type net from "node:net";

/** Counts open connections and admits new ones while under both caps. */
export class ConnectionGate {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly maxConnections: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Admits `socket` (counted until it closes), or destroys it and says false. */
  admit(socket: net.Socket): boolean {
    const address = socket.remoteAddress ?? "";
    const fromAddress = this.byAddress.get(address) ?? 0;
    if (this.total >= this.maxConnections || fromAddress >= this.maxPerAddress) {
      socket.destroy();
      return false;
    }
    this.total++;
    this.byAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      this.total--;
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left === 0) this.byAddress.delete(address);
      else this.byAddress.set(address, left);
    });
    return true;
  }

  /** Connections open now. */
  get open(): number {
    return this.total;
  }
}
