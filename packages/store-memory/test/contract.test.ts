import { Layer } from "effect"
import { layerWithState } from "@productdir/store-memory/testing"
import { relevanceSuite, storeContract } from "@productdir/testkit"
import { layerMemoryOperatorEdits } from "./operatorEdits.ts"

storeContract("memory", layerMemoryOperatorEdits.pipe(Layer.provideMerge(layerWithState)))

relevanceSuite("memory", layerWithState)
