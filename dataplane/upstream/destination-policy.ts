import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, connect as netConnect, isIP, Socket, type NetConnectOpts } from "node:net";
import { connect as tlsConnect, type ConnectionOptions as TlsConnectionOptions } from "node:tls";
import { networkInterfaces } from "node:os";

/**
 * Addresses a customer-registered backend may never reach unless the operator allows them:
 * "this host", loopback, private and shared ranges, link-local (cloud metadata lives there),
 * benchmarking, multicast and reserved ranges, and their IPv6 counterparts. IPv4-mapped IPv6
 * addresses (::ffff:127.0.0.1) match the IPv4 rules.
 */
const DENIED: readonly [string, number, "ipv4" | "ipv6"][] = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["64:ff9b::", 96, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

/** A destination the policy refuses; raised before any connection is attempted. */
export class DestinationRefusedError extends Error {
  readonly code = "EDESTINATIONREFUSED";
  constructor(readonly address: string) {
    super(`destination ${address} is not allowed by the outbound policy`);
    this.name = "DestinationRefusedError";
  }
}

/** Parses "10.0.0.0/8", "fd00::/8" or a bare address; throws on anything else. */
export function parseCidr(text: string): {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
} {
  const [address = "", prefixText] = text.trim().split("/");
  const version = isIP(address);
  if (version === 0) throw new Error(`not an IP address: ${address}`);
  const family = version === 4 ? "ipv4" : "ipv6";
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new Error(`bad prefix length in ${text}`);
  }
  return { address, prefix, family };
}

function familyOf(address: string): "ipv4" | "ipv6" {
  return isIP(address) === 6 ? "ipv6" : "ipv4";
}

/** The addresses of this host's own interfaces (its listeners answer on every one of them). */
export function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address.split("%")[0] ?? i.address);
}

/**
 * Which resolved addresses an outbound call may connect to: everything except the denied ranges
 * and this host's own addresses, unless an allowed CIDR (UPSTREAM_ALLOWED_CIDRS) covers it.
 */
export class DestinationPolicy {
  private readonly denied = new BlockList();
  private readonly allowed = new BlockList();

  constructor(allowedCidrs: readonly string[], own: readonly string[] = ownAddresses()) {
    for (const [address, prefix, family] of DENIED) this.denied.addSubnet(address, prefix, family);
    for (const address of own)
      if (isIP(address)) this.denied.addAddress(address, familyOf(address));
    for (const cidr of allowedCidrs) {
      const c = parseCidr(cidr);
      this.allowed.addSubnet(c.address, c.prefix, c.family);
    }
  }

  allows(address: string): boolean {
    const bare = address.replace(/^\[|\]$/g, "");
    if (isIP(bare) === 0) return false;
    const family = familyOf(bare);
    if (this.allowed.check(bare, family)) return true;
    return !this.denied.check(bare, family);
  }

  /**
   * A `lookup` for net.connect: resolves the name, and refuses when any address it resolves to is
   * not allowed, so the check applies to the address actually connected to (DNS rebinding
   * included).
   */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !this.allows(a.address));
      if (refused !== undefined || addresses.length === 0) {
        return callback(new DestinationRefusedError(refused?.address ?? hostname), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * A `createConnection` for clients other than undici (the realtime WebSocket relay): the same
 * policy, literal addresses checked before connecting and names through the checking lookup.
 */
export function policedCreateConnection(
  policy: DestinationPolicy,
  secure: boolean,
): typeof netConnect {
  const create = (options: NetConnectOpts & TlsConnectionOptions): Socket => {
    const host = String(options.host ?? "").replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0 && !policy.allows(host)) {
      const refused = new Socket();
      process.nextTick(() => refused.destroy(new DestinationRefusedError(host)));
      return refused;
    }
    const checked = { ...options, lookup: policy.lookup };
    return secure ? tlsConnect(checked) : netConnect(checked);
  };
  // Typed as net.connect (what ws expects); ws only ever calls it with one options object.
  return create as typeof netConnect;
}
