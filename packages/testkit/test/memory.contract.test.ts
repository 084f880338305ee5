import { Layer } from "effect"
import { MemoryStore } from "@productdir/domain"
import { layerMemory, storeContract } from "../src/index.ts"

storeContract("memory", layerMemory.pipe(Layer.provideMerge(MemoryStore.layer)))
