/**
 * The attacks of the simulation (docs/threat-model.md, "Crowds"), each on targets of its own, each
 * as the schedule of registrations and votes an attacker would send. Addresses come from ranges no
 * benign voter uses (2001:db8::/32, 100-199.x.x.x), so every vote is known to be the attack's.
 */
import { seeded } from "@productdir/fixtures"
import { DAY, draws, type Event, HOUR, type World } from "./world.ts"

export interface Attack {
  readonly name: string
  /** What it does, in a line of the report. */
  readonly what: string
  /** The products it wants to move, and which way. */
  readonly targets: ReadonlyArray<number>
  readonly direction: "up" | "down"
  /** When its first and last votes are cast. */
  readonly from: number
  readonly to: number
}

const hex = (n: number) => n.toString(16)

/**
 * Adds the attacks' agents to `world.agents` and their events to `world.events`. `top` are the
 * products an attacker would pull down (the most trusted); `obscure` ones are what it would push up.
 */
export const addAttacks = (world: World, seed: number): Array<Attack> => {
  const r = seeded(seed + 7)
  const d = draws(r)
  const day = (n: number, hour = 0) => world.start + n * DAY + hour * HOUR
  const attacks: Array<Attack> = []
  const vote = (group: string, at: number, product: number, agent: number, address: string, direction: "up" | "down") =>
    world.events.push({ kind: "vote", at, product, agent, address, group, direction } satisfies Event)
  const newAgent = (group: string, address: string, registersAt: number) => {
    world.agents.push({ address, registersAt, group })
    world.events.push({ kind: "register", at: registersAt, agent: world.agents.length - 1 })
    return world.agents.length - 1
  }
  /** A few votes on popular products over the days before, as a ring member's cover. */
  const camouflage = (group: string, agent: number, address: string, from: number, to: number, count: number) => {
    for (let k = 0; k < count; k++) vote(group, from + r.next() * (to - from), r.int(0, 300), agent, address, "up")
  }

  {
    const name = "/48 flood"
    const from = day(6, 10)
    for (let i = 0; i < 2_000; i++) vote(name, from + (i * HOUR) / 2_000, 0, -1, `2001:db8:48:${hex(i)}::1`, "down")
    attacks.push({
      name,
      what: "2,000 anonymous down votes in an hour, one per /64 of one /48",
      targets: [0],
      direction: "down",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "botnet over /24s"
    const from = day(8, 14)
    for (let i = 0; i < 1_000; i++)
      vote(name, from + (i * 10 * 60_000) / 1_000, 1, -1, `${100 + (i % 100)}.${Math.floor(i / 100)}.${i % 250}.9`, "down")
    attacks.push({
      name,
      what: "1,000 IPv4 addresses in 1,000 /24s, down votes within 10 minutes",
      targets: [1],
      direction: "down",
      from,
      to: from + 10 * 60_000
    })
  }
  {
    const name = "registration farm"
    const targets = [5_000, 5_001, 5_002, 5_003, 5_004, 5_005]
    const from = day(10, 20)
    for (let n = 2; n < 10; n++) {
      for (let i = 0; i < 200; i++) {
        const address = `2001:db8:f00d:${hex(n * 256 + i)}::1`
        const agent = newAgent(name, address, day(n, 1) + i * 60_000)
        for (const target of targets) vote(name, from + r.next() * 30 * 60_000, target, agent, address, "up")
      }
    }
    attacks.push({
      name,
      what: "1,600 registrations from one /48 over 8 days; what it got votes up 6 products in 30 minutes",
      targets,
      direction: "up",
      from,
      to: from + 30 * 60_000
    })
  }
  {
    const name = "fast ring"
    const targets = Array.from({ length: 8 }, (_, i) => 3_000 + i)
    const from = day(12, 3)
    for (let i = 0; i < 60; i++) {
      const address = `2001:db8:${hex(0x1000 + i)}:1::1`
      const registersAt = day(1 + (i % 5), 12 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      camouflage(name, agent, address, registersAt + HOUR, from, r.int(4, 12))
      for (const target of targets) vote(name, from + r.next() * HOUR, target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "60 agents, each from its own /48, up on the same 8 products within an hour",
      targets,
      direction: "up",
      from,
      to: from + HOUR
    })
  }
  {
    const name = "slow ring"
    const targets = Array.from({ length: 10 }, (_, i) => 6_000 + i)
    const from = day(14)
    const to = day(21)
    for (let i = 0; i < 40; i++) {
      const address = `2001:db8:${hex(0x2000 + i)}:1::1`
      const registersAt = day(3 + (i % 7), 10 + r.int(0, 8))
      const agent = newAgent(name, address, registersAt)
      camouflage(name, agent, address, registersAt + HOUR, to, r.int(5, 20))
      for (const target of targets) vote(name, from + r.next() * (to - from), target, agent, address, "up")
    }
    attacks.push({
      name,
      what: "40 agents, each from its own /48, up on the same 10 products spread over a week",
      targets,
      direction: "up",
      from,
      to
    })
  }
  {
    const name = "anonymous drip"
    const from = day(16)
    const to = day(23)
    let at = from
    for (let i = 0; at < to; i++) {
      vote(name, at, 8_000, -1, `${100 + (i % 100)}.${100 + Math.floor(i / 100)}.${r.int(0, 255)}.${r.int(1, 254)}`, "up")
      at += d.exponential(15 * 60_000)
    }
    attacks.push({
      name,
      what: "about 4 anonymous up votes an hour for a week, each from another /16",
      targets: [8_000],
      direction: "up",
      from,
      to
    })
  }
  {
    const name = "stolen keys"
    const targets = [10, 11, 12, 13]
    const from = day(22, 9)
    // Keys of established agents (registered in the first two days), used from one botnet.
    const victims = new Set<number>()
    while (victims.size < 30) {
      const a = r.int(0, world.agents.length - 1)
      if (world.agents[a]!.group === "agents" && world.agents[a]!.registersAt < day(2)) victims.add(a)
    }
    let i = 0
    for (const agent of victims) {
      i++
      for (const target of targets) vote(name, from + r.next() * 15 * 60_000, target, agent, `150.${i}.${i}.9`, "down")
    }
    attacks.push({
      name,
      what: "30 stolen keys of established agents, down on 4 trusted products within 15 minutes",
      targets,
      direction: "down",
      from,
      to: from + 15 * 60_000
    })
  }
  return attacks
}
