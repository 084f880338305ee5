import { Layer } from "effect"
import { layerWithState } from "@productdir/store-memory/testing"
import { storeContract } from "@productdir/testkit"
import { layerMemoryBackdoor } from "./backdoor.ts"

storeContract("memory", layerMemoryBackdoor.pipe(Layer.provideMerge(layerWithState)))
