import { Layer } from "effect"
import { layerWithState } from "@productdir/store-memory/testing"
import { relevanceSuite, storeContract } from "@productdir/testkit"
import { layerMemoryBackdoor } from "./backdoor.ts"

storeContract("memory", layerMemoryBackdoor.pipe(Layer.provideMerge(layerWithState)))

relevanceSuite("memory", layerWithState)
